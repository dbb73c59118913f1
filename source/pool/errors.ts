/** The errors of the CT-pool contract, with the texts users see. */

import type { Shortfall } from './status.js';
/** What kind of failure an error is; the CLI maps kinds to exit codes. */
export type PoolErrorKind =
	| 'usage' // bad input from the caller: exit 2, nothing changed
	| 'invalid-spec' // a definition that does not parse or validate
	| 'persistent' // mode: persistent
	| 'not-found' // no such pool or member
	| 'no-free' // pool has no free members
	| 'reserved-identity' // a claim as the reconciler
	| 'not-holder' // release by an identity that does not hold the claim
	| 'busy' // the member is being reconciled or held
	| 'failed'; // a cluster step failed

/** An error that carries its kind and a message naming the problem and the fix. */
export class PoolError extends Error {
	readonly kind: PoolErrorKind;
	constructor(kind: PoolErrorKind, message: string) {
		super(message);
		this.name = 'PoolError';
		this.kind = kind;
	}
}

/** Kinds of PoolError that retrying cannot cure: only a change of the definition can. */
const TERMINAL_KINDS: ReadonlySet<PoolErrorKind> = new Set([
	'invalid-spec',
	'persistent',
	'not-found',
	'usage',
]);

/**
 * Whether an error of a reconcile is terminal (a corrupt or persistent definition, no pool).
 * Here, not in the controller, so the console's loop needs no metrics library to ask.
 */
export function isTerminalPoolError(err: unknown): boolean {
	return err instanceof PoolError && TERMINAL_KINDS.has(err.kind);
}

/** The identity reserved for the reconciler. */
export const RECONCILER_IDENTITY = 'corral-vdi/reconciler';

/** The contract's text for a persistent pool. */
export const PERSISTENT_MESSAGE =
	'persistent CT pools are not supported; use a VM pool for persistent desktops';

/**
 * The text for a claim that finds no free member: the contract's three counts always, then
 * every other reason a desired member is not free, when it applies, so that the parts add up
 * to desired; `blocked` names the members a stranger's objects block.
 */
export function noFreeMessage(s: Shortfall, blocked: readonly string[] = []): string {
	const parts = [
		`desired ${s.desired}`,
		`claimed ${s.claimed}`,
		`unschedulable ${s.unschedulable}`,
	];
	if (s.foreign > 0)
		parts.push(
			`blocked by objects not the pool's ${s.foreign}${blocked.length > 0 ? ` (${strangers(blocked)})` : ''}`,
		);
	if (s.rebuilding > 0) parts.push(`being rebuilt ${s.rebuilding}`);
	if (s.failed > 0) parts.push(`failed ${s.failed}`);
	if (s.maintenance > 0) parts.push(`in maintenance ${s.maintenance}`);
	if (s.drifted > 0) parts.push(`drifted ${s.drifted}`);
	if (s.free > 0) parts.push(`free but taken by claims at the same time ${s.free}`);
	return `pool has no free members (${parts.join(', ')})`;
}

/** The members a stranger's objects block, named (the first few). */
function strangers(blocked: readonly string[]): string {
	const names = blocked.slice(0, 5).join(', ');
	return blocked.length > 5 ? `${names}, ...` : names;
}

/** The text for a claim as the reserved identity. */
export const RESERVED_IDENTITY_MESSAGE = `the identity "${RECONCILER_IDENTITY}" is reserved for the reconciler; claim as a user identity such as alice@example.com`;

/** Why a claim identity is unusable, or null when it is fine. */
export function identityProblem(identity: string): string | null {
	if (identity.length === 0)
		return 'the identity is empty; give the user identity, such as alice@example.com';
	if (identity === RECONCILER_IDENTITY) return RESERVED_IDENTITY_MESSAGE;
	if (identity.length > 253)
		return `the identity is ${identity.length} characters long; use at most 253`;
	if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(identity))
		return 'the identity contains control characters; use printable text such as alice@example.com';
	if (/[\p{Cf}\p{Co}\p{Cn}]/u.test(identity))
		return 'the identity contains invisible characters (zero-width, bidi or format marks) that would make it look like another; type it plainly, such as alice@example.com';
	if (identity.trim() !== identity || /\s/.test(identity))
		return 'the identity contains white space; use a single word such as alice@example.com';
	return null;
}
