/**
 * Issue 22, finding 2 in the reconciler: a pool whose replacing is stopped (a replace storm)
 * and whose recorded status has `"errors":5` is reconciled (the status rewritten whole), not
 * thrown on at every pass.
 */

import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apply, readPool, reconcile } from '../../source/engine/index.js';
import { REPLACED_ANNOTATION } from '../../source/pool/names.js';
import { parseStatus } from '../../source/pool/status.js';
import { itSim, startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describe('a stopped pool with a status of the wrong shape', () => {
	itSim(
		'is reconciled, and its status rewritten',
		"an image that cannot be pulled: kwok's nodes run any image",
		async () => {
			const ctx = c.context();
			await apply(ctx, 'storm', poolSpec({ size: 1, image: 'registry.invalid/desktop:1' }));
			await waitFor(async () => {
				const snap = await readPool(ctx, 'storm');
				return snap.members.every((m) => m.state === 'Failed');
			}, 'the member Failed');
			// replaced twice already, long ago: the pool is in a replace storm
			const pvc = (await c.api.get('persistentvolumeclaims', 'storm-1-data'))!;
			await c.api.update('persistentvolumeclaims', {
				...pvc,
				metadata: {
					...pvc.metadata,
					annotations: {
						...pvc.metadata.annotations,
						[REPLACED_ANNOTATION]: '{"count":2,"at":"2020-01-01T00:00:00Z"}',
					},
				},
			});
			const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-storm'))!;
			await c.api.update('configmaps', {
				...cm,
				data: {
					...(cm.data as Record<string, string>),
					status: JSON.stringify({ members: [], errors: 5 }),
				},
			});
			const result = await reconcile(ctx, 'storm');
			expect(result.errors[0]).toMatch(/^pool storm: 1 of 1 members failed the same way/);
			expect(result.statusWritten).toBe(true);
			const after = (await c.api.get('configmaps', 'corral-vdi-ctpool-storm'))!;
			const status = parseStatus((after.data as Record<string, string>).status);
			expect(status?.errors).toEqual(result.errors);
		},
	);
});
