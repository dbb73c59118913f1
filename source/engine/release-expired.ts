/**
 * Freeing expired claims across pools: every member whose claim expired, in one pool, a
 * namespace, or every namespace, found from the pools' live state and released with --force
 * as the acting identity. The CLI's `release --expired` and the console's `*` share it.
 */

import type { MemberView } from '../pool/member-state.js';
import { checkPoolName, failureText } from './cluster-error.js';
import { deriveContext, type EngineContext } from './context.js';
import { listPoolsAcross, type PlacedSnapshot, readPool } from './read-pool.js';
import { release } from './release.js';

/** A member whose claim expired: where it is and who held it. */
export interface ExpiredClaim {
	namespace: string;
	pool: string;
	member: string;
	holder: string;
	/** When the claim expired (ms), when known. */
	expiredAt: number | null;
}

/** Which pools to look in: one pool of the context's namespace, its every pool, or every namespace's. */
export interface ExpiredScope {
	pool?: string;
	allNamespaces?: boolean;
}

/** What happened to one expired claim. */
export interface ExpiredOutcome extends ExpiredClaim {
	ok: boolean;
	/** The release's answer, or why it failed or was left alone. */
	message: string;
}

/** Whether a member's claim is a user's, expired, and not in the middle of a reconcile. */
export function hasExpiredClaim(m: Pick<MemberView, 'claimExpired' | 'reconciling' | 'holder'>) {
	return m.claimExpired && !m.reconciling && m.holder !== '';
}

/** The expired claims of the given pools, in pool order, then member index (pure). */
export function expiredClaims(placed: readonly PlacedSnapshot[]): ExpiredClaim[] {
	const out: ExpiredClaim[] = [];
	for (const { namespace, snapshot } of placed)
		for (const m of [...snapshot.members].sort((a, b) => a.index - b.index))
			if (hasExpiredClaim(m))
				out.push({
					namespace,
					pool: snapshot.pool,
					member: m.name,
					holder: m.holder,
					expiredAt: m.leaseExpiresAt,
				});
	return out;
}

/** Reads the pools of the scope and lists their expired claims; changes nothing. */
export async function findExpiredClaims(
	ctx: EngineContext,
	scope: ExpiredScope,
): Promise<ExpiredClaim[]> {
	if (scope.pool !== undefined) {
		checkPoolName(scope.pool);
		const snapshot = await readPool(ctx, scope.pool);
		return expiredClaims([{ namespace: ctx.namespace, snapshot }]);
	}
	return expiredClaims(await listPoolsAcross(ctx, scope.allNamespaces === true));
}

/**
 * Releases each expired claim with --force as the context's actor, in its own namespace, one
 * after another. A claim renewed or handed over since it was listed is left alone (the check
 * is made on the Lease the release swaps). Every claim gets an outcome; nothing throws but an
 * abort, which ends the run before the next member.
 */
export async function releaseExpired(
	ctx: EngineContext,
	claims: readonly ExpiredClaim[],
	opts: { onProgress?: (message: string) => void; onOutcome?: (o: ExpiredOutcome) => void } = {},
): Promise<ExpiredOutcome[]> {
	const out: ExpiredOutcome[] = [];
	for (const claim of claims) {
		if (ctx.signal?.aborted) break;
		const inNamespace = deriveContext(ctx, { namespace: claim.namespace });
		let outcome: ExpiredOutcome;
		try {
			const r = await release(inNamespace, claim.pool, claim.member, ctx.actor, {
				force: true,
				expiredOf: claim.holder,
				...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
			});
			outcome = { ...claim, ok: r.released, message: r.message };
		} catch (err) {
			outcome = { ...claim, ok: false, message: failureText(err) };
		}
		out.push(outcome);
		opts.onOutcome?.(outcome);
	}
	return out;
}
