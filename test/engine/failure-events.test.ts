/**
 * Issue 22, finding 3: a step that fails the same way pass after pass writes its
 * ReconcileFailed Event once, not once per pass; again when the failure changes, and after 10
 * minutes of repeats with a count of the failures it stands for.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDefinition } from '../../source/engine/apply.js';
import { FAILURE_REPEAT_MS } from '../../source/engine/failure-events.js';
import { reconcile } from '../../source/engine/reconcile.js';
import { loadKube } from '../../source/kube/config.js';
import { AUDIT_ANNOTATION, AUDIT_POOL_LABEL } from '../../source/pool/audit.js';
import { startTestCluster, type TestCluster, testContext } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** The audit records of the pool's ReconcileFailed Events, oldest first. */
async function failures(pool: string): Promise<Array<{ detail?: string; count?: number }>> {
	const events = await c.api.list('events', { labelSelector: `${AUDIT_POOL_LABEL}=${pool}` });
	return events
		.filter((e) => (e as KubeObject & { reason?: string }).reason === 'ReconcileFailed')
		.sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
		.map((e) => JSON.parse(e.metadata.annotations?.[AUDIT_ANNOTATION] ?? '{}'));
}

describe('ReconcileFailed Events of a failure that repeats', () => {
	it('are written once, again when the failure changes, and after 10 minutes with a count', async () => {
		const pool = 'fev';
		await writeDefinition(c.context(), pool, poolSpec({ size: 1 }));
		// a reconciler that may make PVCs but not pods: every pass fails the same way
		const rules = [
			{ apiGroups: [''], resources: ['configmaps', 'persistentvolumeclaims'], verbs: ['*'] },
			{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list', 'delete'] },
			{ apiGroups: [''], resources: ['events'], verbs: ['create'] },
			{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['*'] },
		];
		const kube = await loadKube({ kubeconfig: await c.grant('no-pods', rules) });
		let skew = 0;
		const ctx = testContext(kube, { actor: 'reconciler', now: () => Date.now() + skew });
		for (let pass = 0; pass < 4; pass++) {
			const result = await reconcile(ctx, pool);
			expect(result.errors.join('\n')).toMatch(/(create|start) fev-1: .*forbidden/);
		}
		// the create failed, then each start the same way: two Events for four failures
		expect(await failures(pool)).toEqual([
			expect.objectContaining({ detail: expect.stringMatching(/^create: .*forbidden/) }),
			expect.objectContaining({ detail: expect.stringMatching(/^start: .*forbidden/) }),
		]);
		skew = FAILURE_REPEAT_MS;
		await reconcile(ctx, pool);
		const all = await failures(pool);
		expect(all).toHaveLength(3);
		// it stands for the two starts not written and itself
		expect(all[2]).toMatchObject({ detail: all[1]?.detail, count: 3 });
	});
});
