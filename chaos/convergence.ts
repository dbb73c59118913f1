/**
 * Convergence: after the chaos, the faults off and one final reconcile, the pool matches its
 * definition: exactly `size` members, all Ready, all from the current source, none in
 * maintenance, and no Lease left (no reconciler's, and no claim once every user released).
 */

import type { Finding } from './invariants.js';
import type { Truth } from './truth.js';

/** What the convergence checks found. */
export interface ConvergenceResult {
	checks: number;
	violations: Finding[];
	/** Members that exist, by state. */
	states: Record<string, number>;
}

/** Checks the pool's final state against its definition. */
export function checkConvergence(truth: Truth, now: number): ConvergenceResult {
	const out: ConvergenceResult = { checks: 0, violations: [], states: {} };
	const fail = (rule: string, member: string, message: string) =>
		out.violations.push({ rule, member, revision: 0, message });
	const check = (ok: boolean) => {
		out.checks++;
		return ok;
	};
	const spec = truth.spec();
	check(spec !== null);
	if (spec === null) {
		fail('definition', '', `pool ${truth.pool} has no readable definition at the end`);
		return out;
	}
	const views = truth.views(now);
	let existing = 0;
	for (const v of views) {
		out.states[v.state] = (out.states[v.state] ?? 0) + 1;
		if (v.state !== 'Missing') existing++;
		if (!check(!v.aboveSize))
			fail('above-size', v.name, `${v.name} (${v.state}) is above the pool size ${spec.size}`);
		if (!check(v.state === 'Ready'))
			fail(
				'not-ready',
				v.name,
				`${v.name} is ${v.state}${v.message ? ` (${v.message})` : ''}, not Ready`,
			);
		if (!check(!v.drifted))
			fail('drifted', v.name, `${v.name} carries source ${v.sourceHash}, not the current one`);
		if (!check(!v.maintenance))
			fail('maintenance', v.name, `${v.name} is in maintenance: ${v.maintenanceReason}`);
		if (!check(!v.reconciling))
			fail(
				'reconciler-lease-left',
				v.name,
				`${v.name} still has a reconciler Lease after the final reconcile (11 minutes later)`,
			);
		if (!check(v.holder === ''))
			fail('claim-left', v.name, `${v.name} is still claimed by ${v.holder}`);
	}
	if (!check(existing === spec.size))
		fail('size', '', `${existing} members exist; the pool size is ${spec.size}`);
	return out;
}
