/** The controller's metrics of a reconcile's plan and steps (issue 26): counts and times per kind, no identity. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	type PoolController,
	startPoolController,
} from '../../source/controller/pool-controller.js';
import { writeDefinition } from '../../source/engine/apply.js';
import { createEngine } from '../../source/engine/engine.js';
import type { ReconcileResult } from '../../source/engine/reconcile.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
let pools: PoolController | undefined;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(async () => {
	await pools?.stop();
	await c?.close();
});

/** The lines of one metric family (its samples), from the registry's text. */
function family(text: string, name: string): string[] {
	return text.split('\n').filter((l) => l.startsWith(`${name}_`) || l.startsWith(`${name}{`));
}

describe('the plan metrics', () => {
	it('count the members each plan touched per kind, and time each step per kind and result', async () => {
		const results: ReconcileResult[] = [];
		pools = startPoolController({
			kube: c.kube,
			namespace: c.ns,
			pool: 'pm',
			resyncMs: 60_000,
			settleMs: 50,
			engine: createEngine(c.kube, { actor: 'metrics-test@example' }),
			onReconciled: (_key, result) => results.push(result),
		});
		await writeDefinition(c.context(), 'pm', poolSpec({ size: 2 }));
		await waitFor(() => results.some((r) => r.actions.length === 2), {
			what: 'the controller created both members',
			timeoutMs: 30_000,
		});
		// stopped: no pass in flight, so each pass's plan and result are both counted
		await pools.stop();
		const text = await pools.metrics.registry.metrics();
		const plan = family(text, 'ctpool_reconcile_plan_steps');
		// every pass observes every kind (0 when none): the creates sum to the two members
		expect(plan).toContain('ctpool_reconcile_plan_steps_sum{kind="create"} 2');
		expect(plan).toContain('ctpool_reconcile_plan_steps_sum{kind="replace"} 0');
		const passes = results.length;
		expect(plan).toContain(`ctpool_reconcile_plan_steps_count{kind="delete"} ${passes}`);
		expect(plan).toContain(`ctpool_reconcile_plan_steps_count{kind="left-alone"} ${passes}`);
		const steps = family(text, 'ctpool_reconcile_step_duration_seconds');
		expect(steps).toContain(
			'ctpool_reconcile_step_duration_seconds_count{kind="create",result="done"} 2',
		);
		expect(steps.some((l) => l.includes('kind="replace"'))).toBe(false);
		// counts only: no pool, member, namespace or holder in these series
		for (const line of [...plan, ...steps]) {
			expect(line).not.toMatch(/pm-|pool=|namespace=|metrics-test/);
		}
	});
});
