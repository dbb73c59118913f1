/**
 * Issue 22, finding 3: a stranger's pod under a member's name, in a watched pool. Before, every
 * pass took the member's Lease, made its PVC, met the pod, deleted both again and wrote a
 * ReconcileFailed Event; the Lease churn came back through the watch as events of the pool,
 * which brought the next pass forward, so the backoff never grew. Now the member is left
 * alone once the stranger is known (no Lease, no PVC, no Event per pass), and the pool's
 * retries back off however many events arrive.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	type PoolController,
	startPoolController,
} from '../../source/controller/pool-controller.js';
import { writeDefinition } from '../../source/engine/apply.js';
import { createEngine } from '../../source/engine/engine.js';
import type { ReconcileResult } from '../../source/engine/reconcile.js';
import { pvcName } from '../../source/pool/names.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
let pools: PoolController | null = null;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(async () => {
	await pools?.stop();
	await c?.close();
});

/** The events the test drives: how many, and how far apart (ms). */
const DRIVEN_EVENTS = 40;
const DRIVEN_EVERY_MS = 50;

describe("finding 3: a stranger's pod under a member's name, with the controller running", () => {
	it('leaves the member alone and backs the pool off, however many events of the pool arrive', async () => {
		await c.api.create('pods', {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name: 'hot-2', labels: { app: 'payroll-db' } },
			spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
		});
		await writeDefinition(c.context(), 'hot', poolSpec({ size: 2 }));
		const passes: ReconcileResult[] = [];
		pools = startPoolController({
			kube: c.kube,
			namespace: c.ns,
			pool: 'hot',
			resyncMs: 60_000,
			settleMs: 20,
			engine: createEngine(c.kube, { actor: 'reconciler', deleteTimeoutMs: 20_000 }),
			onReconciled: (_key, result) => passes.push(result),
		});
		// the first pass meets the stranger (the one time it may touch hot-2's names)
		await waitFor(
			() => passes.some((p) => p.errors.some((e) => e.includes('hot-2: a pod'))) || undefined,
			'the stranger reported',
		);
		await c.running('hot');
		// a pass has recorded hot-1 Ready (the pool backs off: at its next retry)
		// and the first pass's PVC of hot-2 is gone (on a real cluster its deletion takes a moment)
		await waitFor(
			() => {
				const status = passes.at(-1)?.status;
				const hot2 = status?.members.find((m) => m.name === 'hot-2');
				return (status?.ready === 1 && hot2?.state === 'Missing') || undefined;
			},
			{
				what: 'hot-1 recorded Ready and hot-2 Missing',
				timeoutMs: 30_000,
			},
		);

		const mark = c.mark();
		const before = passes.length;
		const started = Date.now();
		// events of the pool, as a busy pool makes them: the member hot-1's PVC annotated again and again
		for (let i = 0; i < DRIVEN_EVENTS; i++) {
			await c.api.patch('persistentvolumeclaims', pvcName('hot-1'), {
				metadata: { annotations: { 'example.com/touched': String(i) } },
			});
			await new Promise((r) => setTimeout(r, DRIVEN_EVERY_MS));
		}
		const driven = passes.length - before;
		const periodMs = Date.now() - started;
		const mutations = await c.ctpoolMutations(mark);
		console.log(
			`[measured] ${DRIVEN_EVENTS} events over ${periodMs} ms: ${driven} passes, ${mutations.length} writes by ctpool`,
		);
		const onStranger = mutations.filter((m) => m.name.includes('hot-2'));
		// nothing of the member's (Lease, PVC, Event about its PVC) was written again
		expect(onStranger).toEqual([]);
		expect(mutations.filter((m) => m.resource === 'events')).toEqual([]);
		expect(mutations).toEqual([]);
		// The passes grow apart (5 ms doubling) whatever the events: over the driven period at
		// most log2(period / 5 ms) + 2 of them, where each event bringing one forward made a
		// pass per settle (20 ms) or per event.
		expect(driven).toBeLessThanOrEqual(Math.ceil(Math.log2(periodMs / 5)) + 2);
		// the pool still says why hot-2 is not there
		expect(passes.at(-1)?.errors.join('\n')).toMatch(
			/hot-2: a pod of that name is not this pool's/,
		);
		expect(await c.api.get('leases', 'corral-vdi-ct-hot-2')).toBeUndefined();
		expect(await c.api.get('persistentvolumeclaims', pvcName('hot-2'))).toBeUndefined();
	}, 60_000);
});
