/**
 * The gradual rollout: a change of the source replaces the unclaimed members that drifted a
 * few at a time, so that the pool never loses more than maxUnavailable of its unclaimed
 * members at once. A member counts as unavailable when it is unclaimed, within size, not in
 * maintenance and not Ready. Only the replace of a drifted member that is Ready now is held
 * back: drifted members that are not Ready (so not available anyway) go first, claimable
 * (Ready) ones last; Missing members, starts, scale-down and Failed members are never held
 * back.
 */

import type { MemberView } from './member-state.js';
import type { PoolSpec } from './spec.js';

/** maxUnavailable when the spec does not say. */
export const DEFAULT_MAX_UNAVAILABLE = '25%';

/** How a rollout stands, recorded as the status's optional `rollout` key while one runs. */
export interface RolloutProgress {
	/** The source hash the members are moving to. */
	target: string;
	/** Unclaimed members within size already on the target source. */
	updated: number;
	/** Unclaimed members within size. */
	total: number;
}

/** The number of members a rollout may make unavailable at once: the spec's, at least 1. */
export function maxUnavailableOf(spec: Pick<PoolSpec, 'size' | 'maxUnavailable'>): number {
	const v = spec.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE;
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
): RolloutProgress | null {
	if (target === null) return null;
	const members = views.filter((v) => !v.holder && !v.aboveSize);
	if (!members.some((v) => v.drifted)) return null;
	const updated = members.filter((v) => v.state !== 'Missing' && !v.drifted).length;
	return { target, updated, total: members.length };
}

/** A rollout as ctpool prints it: `rolling 6/19 to source 3f2a1b2c…`. */
export function rolloutText(r: RolloutProgress): string {
	return `rolling ${r.updated}/${r.total} to source ${r.target.slice(0, 8)}…`;
}
