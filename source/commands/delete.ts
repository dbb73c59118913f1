/** ctpool delete: remove a pool and all of its members. */

import { type CommandSpec, runCommand } from './command.js';
import { EXIT_OK } from './failure.js';
import { GLOBAL_HELP } from './flags.js';
import { type CommandIo, println } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkPoolArg } from './values.js';

/** The delete command. */
export const deleteCommand: CommandSpec = {
	name: 'delete',
	summary: 'remove a pool and all of its members',
	mutates: true,
	flags: {},
	help: `
Usage: ctpool delete <pool>

Remove the pool: its size is set to 0, every unclaimed member is deleted, then the
definition. A claimed member or one in maintenance keeps the definition in place; the
error names each such member: release it (or turn maintenance off) and run delete again.

${GLOBAL_HELP}
`,
};

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
