/** ctpool apply: define a pool or change its definition, then reconcile it once. */

import { PoolError } from '../pool/errors.js';
import { maxUnavailableProblem, type PoolSpec, SPEC_DEFAULTS } from '../pool/spec.js';
import { runCommand, stringFlag } from './command.js';
import { applyCommand } from './command-specs.js';
import { usageError } from './failure.js';
import type { CommandIo } from './io.js';
import { followRollout, printReconcile } from './reconcile-output.js';
import { connect } from './session.js';
import {
	APPLY_FIELDS,
	checkArgs,
	checkMode,
	checkPoolArg,
	checkSpecField,
	parseSize,
} from './values.js';

/** Runs `ctpool apply`. */
export function runApply(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(applyCommand, argv, io, async (args) => {
		checkArgs('apply', args.input, ['pool']);
		const pool = args.input[0]!;
		checkPoolArg('apply', pool);
		const given: Partial<PoolSpec> = {};
		for (const flag of Object.keys(APPLY_FIELDS) as Array<keyof typeof APPLY_FIELDS>) {
			const v = stringFlag(args, flag);
			if (v === undefined) continue;
			checkSpecField('apply', flag, v);
			given[APPLY_FIELDS[flag]] = v;
		}
		const size = stringFlag(args, 'size');
		if (size !== undefined) given.size = parseSize('apply', size);
		const mode = stringFlag(args, 'mode');
		if (mode !== undefined) given.mode = checkMode('apply', mode);
		if (typeof args.flags.privileged === 'boolean') given.privileged = args.flags.privileged;
		if (typeof args.flags.init === 'boolean') given.init = args.flags.init;
		const maxUnavailable = stringFlag(args, 'maxUnavailable');
		if (maxUnavailable !== undefined) {
			const value = /^\d+$/.test(maxUnavailable) ? Number(maxUnavailable) : maxUnavailable;
			if (maxUnavailableProblem(value))
				throw usageError(
					'apply',
					`--max-unavailable ${JSON.stringify(maxUnavailable.slice(0, 20))} is not a number of at least 1 or a percentage such as 25%`,
				);
			given.maxUnavailable = value;
		}

		const { engine } = await connect(args.flags, io);
		const noWait = args.flags.wait === false;
		// The flags are laid over the definition as it is at the moment of the write, so a
		// change another admin made meanwhile is kept.
		const merge = (current: PoolSpec | null, exists: boolean): PoolSpec => {
			const image = given.image ?? current?.image;
			const newSize = given.size ?? current?.size;
			if (image === undefined || newSize === undefined) {
				const missing = [
					image === undefined ? '--image' : '',
					newSize === undefined ? '--size' : '',
				]
					.filter(Boolean)
					.join(' and ');
				throw new PoolError(
					'usage',
					`${missing} ${missing.includes(' and ') ? 'are' : 'is'} needed: pool ${pool} has ${exists ? 'no readable definition' : 'no definition yet'}; see ctpool apply --help`,
				);
			}
			if (newSize === 0)
				throw new PoolError(
					'usage',
					`--size is needed: pool ${pool} is being deleted (its size is 0); give the size to keep it`,
				);
			const limit = given.maxUnavailable ?? current?.maxUnavailable;
			return {
				...(limit !== undefined ? { maxUnavailable: limit } : {}),
				image,
				cpu: given.cpu ?? current?.cpu ?? SPEC_DEFAULTS.cpu,
				memory: given.memory ?? current?.memory ?? SPEC_DEFAULTS.memory,
				disk: given.disk ?? current?.disk ?? SPEC_DEFAULTS.disk,
				storageClass: given.storageClass ?? current?.storageClass ?? SPEC_DEFAULTS.storageClass,
				privileged: given.privileged ?? current?.privileged ?? SPEC_DEFAULTS.privileged,
				init: given.init ?? current?.init ?? SPEC_DEFAULTS.init,
				mode: given.mode ?? current?.mode ?? SPEC_DEFAULTS.mode,
				size: newSize,
			};
		};
		const result = await engine.apply(pool, merge);
		printReconcile(io, result);
		return followRollout(engine.ctx, io, result, {
			noWait,
			...(io.signal ? { signal: io.signal } : {}),
		});
	});
}
