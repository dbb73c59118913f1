import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, deletePool, release, setMaintenance } from '../../source/engine/index.js';
import { PoolError } from '../../source/pool/errors.js';
import { startTestCluster, type TestCluster, testContext } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { kubeWithout, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

async function left(pool: string): Promise<string[]> {
	const kinds = ['pods', 'persistentvolumeclaims', 'leases', 'configmaps'];
	const lists = await Promise.all(
		kinds.map((r) => c.api.list(r, { labelSelector: `corral.dev/vdi-ct-pool=${pool}` })),
	);
	return lists.flatMap((list, i) => list.map((o) => `${kinds[i]}/${o.metadata.name}`));
}

describe('delete', () => {
	it('deletes every member and then the definition', async () => {
		const ctx = c.context();
		await apply(ctx, 'gone', poolSpec({ size: 3 }));
		await deletePool(ctx, 'gone');
		expect(await left('gone')).toEqual([]);
	});

	it('keeps the definition while a member is claimed or in maintenance, naming each and why', async () => {
		const ctx = c.context();
		await apply(ctx, 'keep', poolSpec({ size: 3 }));
		await waitReady(ctx, 'keep', 3);
		await claim(ctx, 'keep', 'wes@example.com'); // keep-1
		await setMaintenance(ctx, 'keep', 'keep-2', true, 'disk check');
		const err = await deletePool(ctx, 'keep').then(
			() => null,
			(e: unknown) => e as PoolError,
		);
		expect(err).toBeInstanceOf(PoolError);
		expect(err!.kind).toBe('failed');
		expect(err!.message).toContain('keep-1 is claimed by wes@example.com');
		expect(err!.message).toContain('keep-2 is in maintenance');
		expect(err!.message).toContain(`ctpool delete keep -n ${c.ns} again`);
		expect(err!.message).not.toContain('keep-3');
		// keep-3 is gone; the definition stays with size 0.
		expect((await left('keep')).sort()).toEqual(
			[
				'configmaps/corral-vdi-ctpool-keep',
				'leases/corral-vdi-ct-keep-1',
				'persistentvolumeclaims/keep-1-data',
				'persistentvolumeclaims/keep-2-data',
				'pods/keep-1',
				'pods/keep-2',
			].sort(),
		);
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-keep')) as unknown as {
			data: Record<string, string>;
		};
		expect(JSON.parse(cm.data.spec!).size).toBe(0);
		// Once released and out of maintenance, delete again finishes.
		await release(ctx, 'keep', 'keep-1', 'wes@example.com');
		await setMaintenance(ctx, 'keep', 'keep-2', false);
		await deletePool(ctx, 'keep');
		expect(await left('keep')).toEqual([]);
	});

	it('names a member whose delete failed, and keeps the definition', async () => {
		const ctx = c.context();
		await apply(ctx, 'stuck', poolSpec({ size: 1 }));
		// Deleted by an operator whose Role lacks PVC delete: the cluster refuses it.
		const denied = testContext(
			await kubeWithout(c, 'no-pvc-delete', 'delete', 'persistentvolumeclaims'),
		);
		const err = await deletePool(denied, 'stuck').then(
			() => null,
			(e: unknown) => e as PoolError,
		);
		expect(err).toBeInstanceOf(PoolError);
		expect(err?.message).toMatch(/delete stuck-1: forbidden: cannot delete persistentvolumeclaims/);
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-stuck')).toBeDefined();
		expect(await c.api.get('persistentvolumeclaims', 'stuck-1-data')).toBeDefined();
		// The pod's delete went through before the PVC's was refused: wait out its grace period
		// (a delete while it terminates says "still being deleted", as it should).
		await waitFor(async () => (await c.api.get('pods', 'stuck-1')) === undefined, {
			what: 'pod stuck-1 gone',
		});
		await deletePool(ctx, 'stuck');
		expect(await left('stuck')).toEqual([]);
	});
});
