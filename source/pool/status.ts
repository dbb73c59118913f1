/** The pool status the reconciler records in the definition ConfigMap. */

import { RECONCILER_IDENTITY } from './errors.js';
import type { MemberState, MemberView } from './member-state.js';
import type { RolloutProgress } from './rollout.js';

/** One member row of the status. */
export interface StatusMember {
	name: string;
	index: number;
	state: MemberState;
	holder: string;
	claimExpired: boolean;
	maintenance: boolean;
	drifted: boolean;
	aboveSize: boolean;
	node: string;
	message: string;
	/** What differs, for a drifted member (`image: pool desktop:2, pod other:9`); absent otherwise. */
	drift?: string;
}

/** The `status` key of the definition ConfigMap. */
export interface PoolStatus {
	observedAt: string;
	reconciler: string;
	desired: number;
	observed: number;
	ready: number;
	claimed: number;
	free: number;
	unschedulable: number;
	exhausted: boolean;
	/** An extension beside the seed's counts: free members that are Ready (claimable now). */
	claimableNow?: number;
	/** An extension: free members that are Starting or Stopped (claimable once they start). */
	claimableSoon?: number;
	members: StatusMember[];
	errors: string[];
	/** An extension, present only while a rollout runs: its progress (readers may ignore it). */
	rollout?: RolloutProgress;
}

/** The counts of a pool, from its member views. */
export interface PoolCounts {
	desired: number;
	observed: number;
	ready: number;
	claimed: number;
	free: number;
	unschedulable: number;
	drifted: number;
	exhausted: boolean;
	/** Free and Ready: a claim gets a desktop at once. */
	claimableNow: number;
	/** Free and Starting or Stopped: a claim gets one that is still starting. */
	claimableSoon: number;
}

/** Counts over member views (observed = members with a PVC or pod, above size included). */
export function countMembers(size: number, views: readonly MemberView[]): PoolCounts {
	let observed = 0;
	let ready = 0;
	let claimed = 0;
	let free = 0;
	let unschedulable = 0;
	let drifted = 0;
	let claimableNow = 0;
	for (const v of views) {
		if (v.free && v.state === 'Ready') claimableNow++;
		if (v.state !== 'Missing') observed++;
		if (v.state === 'Ready') ready++;
		if (v.holder) claimed++;
		if (v.free) free++;
		if (v.state === 'Unschedulable') unschedulable++;
		if (v.drifted) drifted++;
	}
	return {
		desired: size,
		observed,
		ready,
		claimed,
		free,
		unschedulable,
		drifted,
		exhausted: observed > 0 && free === 0,
		claimableNow,
		claimableSoon: free - claimableNow,
	};
}

/** The status object for a pool. */
export function buildStatus(
	size: number,
	views: readonly MemberView[],
	errors: readonly string[],
	now: number,
): PoolStatus {
	const c = countMembers(size, views);
	return {
		observedAt: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
		reconciler: RECONCILER_IDENTITY,
		desired: c.desired,
		observed: c.observed,
		ready: c.ready,
		claimed: c.claimed,
		free: c.free,
		unschedulable: c.unschedulable,
		exhausted: c.exhausted,
		claimableNow: c.claimableNow,
		claimableSoon: c.claimableSoon,
		members: views.map((v) => {
			const row: StatusMember = {
				name: v.name,
				index: v.index,
				state: v.state,
				holder: v.holder,
				claimExpired: v.claimExpired,
				maintenance: v.maintenance,
				drifted: v.drifted,
				aboveSize: v.aboveSize,
				node: v.node,
				message: v.message,
			};
			if (v.drifted && v.drift.length > 0) row.drift = v.drift.join('; ');
			return row;
		}),
		errors: [...errors],
	};
}

/** True when two statuses say the same, observedAt aside. */
export function sameStatus(a: PoolStatus, b: PoolStatus): boolean {
	return JSON.stringify({ ...a, observedAt: '' }) === JSON.stringify({ ...b, observedAt: '' });
}

/** Parses a recorded status; null when absent or unreadable (a status is advisory). */
export function parseStatus(text: string | undefined): PoolStatus | null {
	if (!text) return null;
	try {
		const o = JSON.parse(text) as PoolStatus;
		return o && typeof o === 'object' && Array.isArray(o.members) ? o : null;
	} catch {
		return null;
	}
}

/**
 * Why a pool's desired members are not free, each member counted once, in this order:
 * claimed, being rebuilt (missing, terminating, or the reconciler holds its Lease), in
 * maintenance, failed, unschedulable, drifted; free is what is left. The parts add up to
 * desired.
 */
export interface Shortfall {
	desired: number;
	claimed: number;
	rebuilding: number;
	maintenance: number;
	failed: number;
	unschedulable: number;
	drifted: number;
	free: number;
}

/** The shortfall of a pool from its member views (members above size are not desired). */
export function shortfall(size: number, views: readonly MemberView[]): Shortfall {
	const s: Shortfall = {
		desired: size,
		claimed: 0,
		rebuilding: 0,
		maintenance: 0,
		failed: 0,
		unschedulable: 0,
		drifted: 0,
		free: 0,
	};
	for (const v of views) {
		if (v.index > size) continue;
		if (v.holder) s.claimed++;
		else if (v.reconciling || v.state === 'Missing' || v.state === 'Terminating') s.rebuilding++;
		else if (v.maintenance) s.maintenance++;
		else if (v.state === 'Failed') s.failed++;
		else if (v.state === 'Unschedulable') s.unschedulable++;
		else if (v.drifted) s.drifted++;
		else if (v.free) s.free++;
		// a Lease with no holder: nobody can claim it until --force; counted as claimed
		else s.claimed++;
	}
	return s;
}
