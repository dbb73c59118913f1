/** ctpool delete: remove a pool and all of its members. */

import { runCommand } from './command.js';
import { deleteCommand } from './command-specs.js';
import { EXIT_OK } from './failure.js';
import { type CommandIo, println } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkPoolArg } from './values.js';

/** Runs `ctpool delete`. */
export function runDelete(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(deleteCommand, argv, io, async (args) => {
		checkArgs('delete', args.input, ['pool']);
		const pool = args.input[0]!;
		checkPoolArg('delete', pool);
		const { engine } = await connect(args.flags, io, { check: 'delete' });
		await engine.deletePool(pool);
		println(io.stdout, `pool ${pool} deleted`);
		return EXIT_OK;
	});
}
