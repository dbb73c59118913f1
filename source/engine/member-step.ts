/** What reconcile does to one member: the contract's five steps as a pure decision. */

import type { MemberView } from '../pool/member-state.js';

/** A reconcile step on one member. */
export type ReconcileStep = 'create' | 'start' | 'replace' | 'delete';

/** True when the reconciler's Lease on the member has expired (or has no readable time). */
function reconcilerLeaseExpired(view: MemberView, now: number): boolean {
	return view.leaseExpiresAt === null || now >= view.leaseExpiresAt;
}

/** True when a user (anyone but the reconciler) holds the member's Lease: hands off. */
export function claimedByUser(view: MemberView): boolean {
	return view.hasLease && !view.reconciling;
}

/**
 * The step reconcile takes on a member, or null for none:
 * 1. create a Missing member within size (not when a user holds its Lease);
 * 2. start a Stopped member (claimed or in maintenance too: a start destroys nothing);
 * 3. replace an unclaimed, not-in-maintenance member that drifted or Failed;
 * 4. delete an unclaimed, not-in-maintenance member above size (or a leftover expired
 *    reconciler Lease of a member that no longer exists).
 * A Terminating member, and one a live reconciler holds, are left alone.
 */
export function planStep(view: MemberView, now: number): ReconcileStep | null {
	if (view.state === 'Terminating') return null;
	if (view.reconciling && !reconcilerLeaseExpired(view, now)) return null;
	const claimed = claimedByUser(view);
	if (view.state === 'Missing') {
		if (claimed) return null;
		// Above size, only an expired reconciler Lease is left: take it over, find nothing to
		// do, and remove it.
		if (view.aboveSize) return view.reconciling ? 'delete' : null;
		return 'create';
	}
	if (view.state === 'Stopped') {
		if (claimed || view.maintenance) return 'start';
		if (view.aboveSize) return 'delete';
		return view.drifted ? 'replace' : 'start';
	}
	if (claimed || view.maintenance) return null;
	if (view.aboveSize) return 'delete';
	if (view.drifted || view.state === 'Failed') return 'replace';
	return null;
}

/** Why a member is replaced, for messages: `drifted` or `Failed: <reason>`. */
export function replaceReason(view: MemberView): string {
	if (view.state === 'Failed') return view.message ? `Failed: ${view.message}` : 'Failed';
	return view.drifted ? 'drifted from the pool definition' : view.state;
}
