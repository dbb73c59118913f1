/** Checks of flag and argument values, before any cluster call: each problem is a usage error. */

import {
	identityProblem,
	PERSISTENT_MESSAGE,
	PoolError,
	RECONCILER_IDENTITY,
} from '../pool/errors.js';
import { memberIndex, memberName, poolNameProblem } from '../pool/names.js';
import { MAX_SIZE, specProblems } from '../pool/spec.js';
import { durationMs } from '../text/age.js';
import { sanitize } from '../text/sanitize.js';

function usage(command: string, message: string): PoolError {
	return new PoolError('usage', `${message}; see ctpool${command ? ` ${command}` : ''} --help`);
}

/** Checks the positional argument count: exactly the names given (optional ones may be left out). */
export function checkArgs(
	command: string,
	input: readonly string[],
	required: readonly string[],
	optional: readonly string[] = [],
): void {
	if (input.length < required.length) {
		const missing = required.slice(input.length).map((n) => `<${n}>`);
		throw usage(command, `missing ${missing.join(' ')}`);
	}
	if (input.length > required.length + optional.length) {
		const extra = input
			.slice(required.length + optional.length)
			.map((a) => JSON.stringify(sanitize(a).slice(0, 40)));
		throw usage(command, `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(' ')}`);
	}
}

/** Checks a pool name. */
export function checkPoolArg(command: string, pool: string): void {
	const problem = poolNameProblem(pool);
	if (problem) throw usage(command, sanitize(problem));
}

/** Checks a member name of a pool. */
export function checkMemberArg(command: string, pool: string, member: string): void {
	if (memberIndex(pool, member) === null)
		throw usage(
			command,
			`${JSON.stringify(sanitize(member).slice(0, 60))} is not a member of pool ${pool}; members are named ${memberName(pool, 1)}, ${memberName(pool, 2)}, ...`,
		);
}

/** Checks a claim identity (the reserved identity is its own kind of error). */
export function checkIdentityArg(command: string, identity: string): void {
	const problem = identityProblem(identity);
	if (!problem) return;
	if (identity === RECONCILER_IDENTITY) throw new PoolError('reserved-identity', problem);
	throw usage(command, problem);
}

/** The pool size of --size: a whole number from 1 to 1000. */
export function parseSize(command: string, value: string): number {
	if (!/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > MAX_SIZE)
		throw usage(
			command,
			`--size ${JSON.stringify(sanitize(value).slice(0, 40))} must be a whole number from 1 to ${MAX_SIZE} (to remove a pool, run ctpool delete)`,
		);
	return Number(value);
}

/** Which spec field each apply flag sets. */
export const APPLY_FIELDS = {
	image: 'image',
	cpu: 'cpu',
	mem: 'memory',
	disk: 'disk',
	storageClass: 'storageClass',
} as const;

/** Checks one source flag's value with the spec's own rules (the message names the flag). */
export function checkSpecField(
	command: string,
	flag: keyof typeof APPLY_FIELDS,
	value: string,
): void {
	const field = APPLY_FIELDS[flag];
	const candidate: Record<string, unknown> = {
		image: 'example/desktop:1',
		size: 1,
		[field]: value,
	};
	const problems = specProblems(candidate);
	if (problems.length > 0)
		throw usage(
			command,
			`--${flag === 'storageClass' ? 'storage-class' : flag}: ${problems.join('; ')}`,
		);
}

/** Checks --mode: ephemeral is the only mode; persistent gets the contract's message. */
export function checkMode(command: string, value: string): 'ephemeral' {
	if (value === 'ephemeral') return value;
	if (value === 'persistent') throw new PoolError('usage', PERSISTENT_MESSAGE);
	throw usage(
		command,
		`--mode ${JSON.stringify(sanitize(value).slice(0, 40))} is not a pool mode; the only supported mode is ephemeral`,
	);
}

/** A duration such as 30s, 1m30s, 500ms or 2h, in ms; at least min. */
export function parseDuration(
	command: string,
	flag: string,
	value: string,
	minMs = 1000,
	maxMs = 24 * 3_600_000,
): number {
	const total = durationMs(value);
	if (total === null)
		throw usage(
			command,
			`--${flag} ${JSON.stringify(sanitize(value).slice(0, 40))} is not a duration; use a value such as 30s, 2m or 1m30s`,
		);
	if (total < minMs)
		throw usage(command, `--${flag} ${value} is too short; use at least ${minMs / 1000}s`);
	if (total > maxMs)
		throw usage(command, `--${flag} ${value} is too long; use at most ${maxMs / 3_600_000}h`);
	return total;
}
