/**
 * The rollout: a change of the source makes the unclaimed members drift, and reconcile
 * replaces them. Without `maxUnavailable` (the seed's rule) every unclaimed drifted member is
 * replaced in one reconcile. With it, the replaces go in waves, so that the pool never loses
 * more than maxUnavailable of its unclaimed members at once, and the members waiting for
 * their wave stay claimable with the old image: a rollout never lowers the number of
 * claimable members. A member counts as unavailable when it is unclaimed, within size, not in
 * maintenance and not Ready. Only the replace of a drifted member that is Ready now is held
 * back: drifted members that are not Ready (so not available anyway) go first, claimable
 * (Ready) ones last; Missing members, starts, scale-down and Failed members are never held
 * back. A claimed member is replaced only after its release.
 */

import type { MemberView } from './member-state.js';
import type { PoolSpec } from './spec.js';

/** How a rollout stands, recorded as the status's optional `rollout` key while one runs. */
export interface RolloutProgress {
	/** The source hash the members are moving to. */
	target: string;
	/** The image of that source, when known (the console and the CLI show it, not the hash). */
	image?: string;
	/** Unclaimed members within size already on the target source. */
	updated: number;
	/** Unclaimed members within size. */
	total: number;
}

/**
 * The number of members a rollout may make unavailable at once: the spec's, at least 1; null
 * when the spec sets no limit (every drifted member is replaced in one reconcile).
 */
export function maxUnavailableOf(spec: Pick<PoolSpec, 'size' | 'maxUnavailable'>): number | null {
	const v = spec.maxUnavailable;
	if (v === undefined) return null;
	const n =
		typeof v === 'number' ? v : Math.floor((spec.size * Number(String(v).replace('%', ''))) / 100);
	return Math.max(1, Number.isFinite(n) ? n : 1);
}

function unclaimedInSize(v: MemberView): boolean {
	return !v.holder && !v.aboveSize && !v.maintenance;
}

/** Unclaimed members within size, not in maintenance, that are not Ready now. */
export function unavailableCount(views: readonly MemberView[]): number {
	return views.filter((v) => unclaimedInSize(v) && (v.state !== 'Ready' || v.reconciling)).length;
}

/** Whether a replace of this member is a rollout step the limit applies to (drifted, Ready, unclaimed). */
export function heldByRollout(v: MemberView): boolean {
	return unclaimedInSize(v) && v.drifted && v.state === 'Ready' && !v.reconciling && !v.hasLease;
}

/**
 * Keeps the planned steps the rollout allows: every step but the replaces of Ready drifted
 * members, and of those as many as the budget (limit minus the members unavailable now)
 * allows, lowest index first. Says how many were held back.
 */
export function limitRollout<T extends { view: MemberView; step: string }>(
	plans: readonly T[],
	views: readonly MemberView[],
	limit: number,
): { plans: T[]; heldBack: number } {
	let budget = Math.max(0, limit - unavailableCount(views));
	const candidates = plans
		.filter((p) => p.step === 'replace' && heldByRollout(p.view))
		.sort((a, b) => a.view.index - b.view.index);
	const dropped = new Set<T>();
	for (const p of candidates) {
		if (budget > 0) budget--;
		else dropped.add(p);
	}
	return { plans: plans.filter((p) => !dropped.has(p)), heldBack: dropped.size };
}

/** The rollout's progress, or null when no unclaimed member within size has drifted. */
export function rolloutProgress(
	views: readonly MemberView[],
	target: string | null,
	image?: string,
): RolloutProgress | null {
	if (target === null) return null;
	const members = views.filter((v) => !v.holder && !v.aboveSize);
	if (!members.some((v) => v.drifted)) return null;
	const updated = members.filter((v) => v.state !== 'Missing' && !v.drifted).length;
	return { target, ...(image ? { image } : {}), updated, total: members.length };
}

/**
 * A rollout as ctpool prints it: `rolling 6/19 to ghcr.io/example/desktop:2` (the source
 * hash, `source 3f2a1b2c…`, only when the image is not known).
 */
export function rolloutText(r: RolloutProgress): string {
	return `rolling ${r.updated}/${r.total} to ${r.image ? r.image : `source ${r.target.slice(0, 8)}…`}`;
}

/** Whether a member's message is only oldSourceNote's (the drift, when shown, says as much first). */
export function isOldSourceNote(message: string): boolean {
	return /^old (image|definition), replaced /.test(message);
}

/** What a member built from an older definition waits for, said on its row and in the header. */
export function oldSourceNote(drift: readonly string[], waves: boolean, claimed: boolean): string {
	const what = drift[0]?.startsWith('image ') ? 'old image' : 'old definition';
	if (waves) return `${what}, replaced after release or in its wave`;
	return claimed ? `${what}, replaced after release` : `${what}, replaced by the next reconcile`;
}
