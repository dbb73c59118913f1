/** ctpool release: the user is done; destroy the member and make it again from the image. */

import { sanitize } from '../text/sanitize.js';
import { type CommandSpec, runCommand } from './command.js';
import { EXIT_OK } from './failure.js';
import { GLOBAL_HELP } from './flags.js';
import { type CommandIo, println, progressReporter } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkIdentityArg, checkMemberArg, checkPoolArg } from './values.js';

/** The release command. */
export const releaseCommand: CommandSpec = {
	name: 'release',
	summary: 'destroy a claimed desktop and make it again from the image',
	mutates: true,
	flags: { force: { type: 'boolean' } },
	help: `
Usage: ctpool release <pool> <member> <identity> [--force]

Release the identity's claim on the member: its pod, console Service and data PVC are
deleted (all data is lost), then the member is made again from the pool's image. A
member with no claim is left alone.

Flags
  --force    release a claim that another identity holds (administrators)

${GLOBAL_HELP}

Example
  ctpool release desk desk-1 alice@example.com
`,
};

/** Runs `ctpool release`. */
export function runRelease(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(releaseCommand, argv, io, async (args) => {
		checkArgs('release', args.input, ['pool', 'member', 'identity']);
		const [pool, member, identity] = args.input as [string, string, string];
		checkPoolArg('release', pool);
		checkMemberArg('release', pool, member);
		checkIdentityArg('release', identity);
		const { engine } = await connect(args.flags, io, { check: 'release' });
		const progress = progressReporter(io);
		try {
			const result = await engine.release(pool, member, identity, {
				force: args.flags.force === true,
				onProgress: (m) => progress.update(`ctpool: ${sanitize(m)}`),
			});
			progress.done();
			println(io.stdout, sanitize(result.message));
			return EXIT_OK;
		} finally {
			progress.done();
		}
	});
}
