/** What reconcile does to one member: the contract's five steps as a pure decision. */

import type { MemberView } from '../pool/member-state.js';
import { replaceHeldUntil } from '../pool/replace-backoff.js';

/** A reconcile step on one member. */
export type ReconcileStep = 'create' | 'start' | 'replace' | 'delete' | 'takeover';

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
 * 3. replace an unclaimed, not-in-maintenance member that drifted or Failed (one that failed
 *    again after a replace only once its backoff has passed: replaceHeldUntil);
 * 4. delete an unclaimed, not-in-maintenance member above size.
 * A Terminating member, one a live reconciler holds, one with objects under its name that are
 * not the pool's and one whose Lease's times make no sense are left alone. A member whose
 * reconciler Lease has expired is taken over: see takeoverStep.
 */
export function planStep(view: MemberView, now: number): ReconcileStep | null {
	if (view.state === 'Terminating') return null;
	// Objects not the pool's under its name, or a Lease whose times make no sense: no step
	// resolves that (reconcile reports it with the way out).
	if (view.foreign.length > 0 || view.leaseProblem) return null;
	// An older Corral broker's claim: ctpool never replaces, deletes or changes such a member.
	if (view.corralClaim) return null;
	if (view.reconciling) return reconcilerLeaseExpired(view, now) ? takeoverStep(view) : null;
	const claimed = claimedByUser(view);
	if (view.state === 'Missing') return claimed || view.aboveSize ? null : 'create';
	if (view.state === 'Stopped') {
		if (claimed || view.maintenance) return 'start';
		if (view.aboveSize) return 'delete';
		return view.drifted ? 'replace' : 'start';
	}
	if (claimed || view.maintenance) return null;
	if (view.aboveSize) return 'delete';
	if (view.drifted) return 'replace';
	// a member that failed again after a replace waits its backoff (no replace storm)
	if (view.state === 'Failed') return replaceHeldUntil(view, now) === null ? 'replace' : null;
	return null;
}

/**
 * The step for a member whose reconciler Lease expired: a reconciler (or a release) stopped
 * in the middle of a step, so the member may be half made, or still hold the data of the
 * user whose release was cut short. It is made again from the current source (deleted when
 * above size; created when nothing is left), never handed out as it is. A member in
 * maintenance is left to the administrator: only the Lease is removed ('takeover').
 */
export function takeoverStep(view: MemberView): ReconcileStep {
	if (view.maintenance || view.state === 'Terminating') return 'takeover';
	if (view.state === 'Missing') return view.aboveSize ? 'takeover' : 'create';
	return view.aboveSize ? 'delete' : 'replace';
}

/** Why a member is replaced, for messages: `drifted` or `Failed: <reason>`. */
export function replaceReason(view: MemberView): string {
	if (view.reconciling) return 'left mid-step by a reconciler that stopped';
	if (view.state === 'Failed') return view.message ? `Failed: ${view.message}` : 'Failed';
	return view.drifted ? 'drifted from the pool definition' : view.state;
}
