/** ctpool claim: give a free member of a pool to an identity; prints the member. */

import { sanitize } from '../text/sanitize.js';
import { runCommand } from './command.js';
import { claimCommand } from './command-specs.js';
import { EXIT_OK } from './failure.js';
import { type CommandIo, println } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkIdentityArg, checkPoolArg } from './values.js';

/** Runs `ctpool claim`. */
export function runClaim(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(claimCommand, argv, io, async (args) => {
		checkArgs('claim', args.input, ['pool', 'identity']);
		const [pool, identity] = args.input as [string, string];
		checkPoolArg('claim', pool);
		checkIdentityArg('claim', identity);
		const { engine } = await connect(args.flags, io, { check: 'claim' });
		const result = await engine.claim(pool, identity);
		println(io.stdout, result.member);
		if (io.stderr.isTTY) {
			const notes = [
				result.existing ? `${sanitize(identity)} already held it` : '',
				result.renewed ? 'the expired claim was renewed' : '',
				result.started ? 'its pod was started' : '',
			].filter(Boolean);
			if (notes.length > 0) println(io.stderr, `ctpool: ${notes.join('; ')}`);
		}
		return EXIT_OK;
	});
}
