/**
 * The ReconcileFailed Events of an engine, aggregated as kube's event correlator does: a
 * step that fails again the same way is not written again every pass (a watching reconciler
 * retries a failing pool many times). It is written when its text changes, and once per
 * FAILURE_REPEAT_MS while it repeats, its count saying how many failures it stands for; a
 * success of the member's step starts afresh.
 */

import type { EngineContext } from './context.js';
import { recordAudit } from './kube-event.js';

/** How long the same failure of a member is not written again (Events live an hour). */
export const FAILURE_REPEAT_MS = 10 * 60_000;

/** The most members whose last failure an engine keeps; the oldest are dropped. */
const MEMBERS_MAX = 10_000;

/** The last failure written for a member, and how many like it were not written since. */
export interface FailureTally {
	detail: string;
	at: number;
	suppressed: number;
}

function keyOf(ctx: EngineContext, pool: string, member: string): string {
	return JSON.stringify([ctx.namespace, pool, member]);
}

/** Records a failed step of a member (a ReconcileFailed Warning), unless it only repeats the last one. */
export function recordStepFailure(
	ctx: EngineContext,
	pool: string,
	member: string,
	detail: string,
): void {
	const tallies = ctx.caches.failures;
	const key = keyOf(ctx, pool, member);
	const now = ctx.now();
	const last = tallies.get(key);
	const same = last !== undefined && last.detail === detail;
	if (same && now - last.at >= 0 && now - last.at < FAILURE_REPEAT_MS) {
		last.suppressed++;
		return;
	}
	const count = 1 + (same ? last.suppressed : 0);
	tallies.delete(key);
	tallies.set(key, { detail, at: now, suppressed: 0 });
	if (tallies.size > MEMBERS_MAX) tallies.delete(tallies.keys().next().value as string);
	recordAudit(ctx, pool, {
		action: 'reconcile-failed',
		member,
		detail,
		...(count > 1 ? { count } : {}),
	});
}

/** A step of the member worked: its next failure is written at once. */
export function forgetStepFailure(ctx: EngineContext, pool: string, member: string): void {
	ctx.caches.failures.delete(keyOf(ctx, pool, member));
}
