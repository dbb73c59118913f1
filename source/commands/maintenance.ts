/** ctpool maintenance: take a member out of use (never free, never replaced or deleted), or back. */

import { sanitize } from '../text/sanitize.js';
import { runCommand } from './command.js';
import { maintenanceCommand } from './command-specs.js';
import { EXIT_OK, usageError } from './failure.js';
import { type CommandIo, println } from './io.js';
import { connect } from './session.js';
import { checkArgs, checkMemberArg, checkPoolArg } from './values.js';

/** Runs `ctpool maintenance`. */
export function runMaintenance(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(maintenanceCommand, argv, io, async (args) => {
		checkArgs('maintenance', args.input, ['pool', 'member', 'on|off'], ['reason']);
		const [pool, member, mode, reason] = args.input as [string, string, string, string | undefined];
		checkPoolArg('maintenance', pool);
		checkMemberArg('maintenance', pool, member);
		if (mode !== 'on' && mode !== 'off')
			throw usageError(
				'maintenance',
				`${JSON.stringify(sanitize(mode).slice(0, 20))} must be on or off`,
			);
		if (mode === 'off' && reason !== undefined)
			throw usageError('maintenance', 'a reason goes only with on');
		if (reason !== undefined && (sanitize(reason) !== reason || reason.length > 256))
			throw usageError(
				'maintenance',
				'the reason must be printable text of at most 256 characters',
			);
		const { engine } = await connect(args.flags, io, { check: 'maintenance' });
		await engine.setMaintenance(pool, member, mode === 'on', reason);
		println(
			io.stdout,
			mode === 'on' ? `${member} is in maintenance` : `${member} is out of maintenance`,
		);
		return EXIT_OK;
	});
}
