import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, reconcile, writeDefinition } from '../../source/engine/index.js';
import { startTestCluster, type TestCluster, testContext } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { kubeWithout, objects, putLease, uidOf, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

async function changed(
	mark: number,
	verb: string,
	resource: string,
	name: string,
): Promise<number> {
	return (await c.ctpoolMutations(mark)).filter(
		(m) => m.changed && m.verb === verb && m.resource === resource && m.name === name,
	).length;
}

async function leasesOf(pool: string): Promise<string[]> {
	return [...(await objects(c, 'leases')).keys()].filter((n) =>
		n.startsWith(`corral-vdi-ct-${pool}-`),
	);
}

describe('reconcile and Leases', () => {
	it('two reconcilers at once never both act on one member and end as one would', async () => {
		const a = c.context({ actor: 'reconciler-a' });
		const b = c.context({ actor: 'reconciler-b' });
		await writeDefinition(a, 'twin', poolSpec({ size: 10 }));
		const mark = c.mark();
		const [ra, rb] = await Promise.all([reconcile(a, 'twin'), reconcile(b, 'twin')]);
		expect([...ra.errors, ...rb.errors]).toEqual([]);
		const members = Array.from({ length: 10 }, (_, i) => `twin-${i + 1}`);
		for (const m of members) {
			expect(await changed(mark, 'create', 'pods', m)).toBe(1);
			expect(await changed(mark, 'create', 'persistentvolumeclaims', `${m}-data`)).toBe(1);
		}
		// They did race: some Lease creates lost (409) and those members were left to the winner,
		// or a Lease came after the winner's was gone and its PVC create found the member made.
		expect(
			(await c.ctpoolMutations(mark)).some(
				(m) =>
					(m.resource === 'leases' || m.resource === 'persistentvolumeclaims') &&
					m.verb === 'create' &&
					!m.changed,
			),
		).toBe(true);
		// Between them, each member was acted on exactly once.
		const acted = [...ra.actions, ...rb.actions].map((x) => x.member).sort();
		expect(acted).toEqual([...members].sort());
		expect(await leasesOf('twin')).toEqual([]);

		// A drift handled by both at once: each member replaced exactly once.
		await waitReady(a, 'twin', 10);
		// no rollout limit here: this is about two reconcilers, not about pacing
		await writeDefinition(
			a,
			'twin',
			poolSpec({ size: 10, image: 'ghcr.io/example/desktop:2', maxUnavailable: 10 }),
		);
		const mark2 = c.mark();
		const [rc, rd] = await Promise.all([reconcile(a, 'twin'), reconcile(b, 'twin')]);
		expect([...rc.errors, ...rd.errors]).toEqual([]);
		for (const m of members) {
			expect(await changed(mark2, 'delete', 'pods', m)).toBe(1);
			expect(await changed(mark2, 'create', 'pods', m)).toBe(1);
		}
		expect(await leasesOf('twin')).toEqual([]);
		const pods = [...(await objects(c, 'pods')).values()].filter((p) =>
			p.metadata.name.startsWith('twin-'),
		);
		expect(pods).toHaveLength(10);
		expect(new Set(pods.map((p) => p.metadata.labels?.['corral.dev/vdi-ct-source'])).size).toBe(1);
	});

	it("a crashed reconciler's Lease blocks its member until it expires, then is taken over", async () => {
		const start = Date.now();
		await putLease(c, 'crash', 'crash-2', 'corral-vdi/reconciler', start, 600);
		const ctx = c.context();
		const first = await apply(ctx, 'crash', poolSpec({ size: 2 }));
		expect(first.actions.map((x) => x.member)).toEqual(['crash-1']);
		expect(await c.api.get('pods', 'crash-2')).toBeUndefined();
		expect(first.status.members.find((m) => m.name === 'crash-2')).toMatchObject({
			state: 'Missing',
		});

		// Nine minutes later it still blocks.
		const nine = await reconcile(c.context({ now: () => start + 9 * 60_000 }), 'crash');
		expect(nine.actions).toEqual([]);
		expect(await c.api.get('pods', 'crash-2')).toBeUndefined();

		// Eleven minutes later the next reconcile takes it over (a CAS update), acts, and removes it.
		const mark = c.mark();
		const later = await reconcile(c.context({ now: () => start + 11 * 60_000 }), 'crash');
		expect(later.errors).toEqual([]);
		expect(later.actions).toEqual([{ member: 'crash-2', step: 'create', ok: true }]);
		expect(await changed(mark, 'update', 'leases', 'corral-vdi-ct-crash-2')).toBe(1);
		expect(await changed(mark, 'delete', 'leases', 'corral-vdi-ct-crash-2')).toBe(1);
		expect(await c.api.get('pods', 'crash-2')).toBeDefined();
		expect(await leasesOf('crash')).toEqual([]);
	});

	it('a member left with an expired reconciler Lease is made again, never handed out as it is', async () => {
		const ctx = c.context();
		await apply(ctx, 'cut', poolSpec({ size: 2 }));
		await waitReady(ctx, 'cut', 2);
		// A release cut short after its compare-and-swap: the reconciler holds the Lease and the
		// old desktop (pod and PVC) is still there.
		const oldPvc = await uidOf(c, 'persistentvolumeclaims', 'cut-1-data');
		expect(oldPvc).toBeDefined();
		const start = Date.now();
		await putLease(c, 'cut', 'cut-1', 'corral-vdi/reconciler', start, 600);
		const before = await reconcile(c.context({ now: () => start + 9 * 60_000 }), 'cut');
		expect(before.actions).toEqual([]);
		expect(before.status.members[0]).toMatchObject({ name: 'cut-1', holder: '' });
		expect(before.status.free).toBe(1);

		const mark = c.mark();
		const later = await reconcile(c.context({ now: () => start + 11 * 60_000 }), 'cut');
		expect(later.errors).toEqual([]);
		expect(later.actions).toEqual([{ member: 'cut-1', step: 'replace', ok: true }]);
		expect(await changed(mark, 'update', 'leases', 'corral-vdi-ct-cut-1')).toBe(1);
		expect(await changed(mark, 'delete', 'persistentvolumeclaims', 'cut-1-data')).toBe(1);
		const newPvc = await uidOf(c, 'persistentvolumeclaims', 'cut-1-data');
		expect(newPvc).toBeDefined();
		expect(newPvc).not.toBe(oldPvc);
		expect(await leasesOf('cut')).toEqual([]);
	});

	it('a failed create leaves no Lease and the next reconcile creates the member', async () => {
		const ctx = c.context();
		// Applied by an operator whose Role lacks pod create: the cluster refuses each pod.
		const denied = testContext(await kubeWithout(c, 'no-pod-create', 'create', 'pods'));
		const failed = await apply(denied, 'deny', poolSpec({ size: 2 }));
		expect(failed.errors).toHaveLength(2);
		expect(failed.errors[0]).toMatch(
			new RegExp(`^create deny-1: forbidden: cannot create pods in namespace ${c.ns}`),
		);
		expect(failed.actions.every((x) => !x.ok)).toBe(true);
		expect(failed.status.errors).toEqual(failed.errors);
		expect(await leasesOf('deny')).toEqual([]);
		expect(await c.api.get('pods', 'deny-1')).toBeUndefined();
		const next = await reconcile(ctx, 'deny');
		expect(next.errors).toEqual([]);
		expect(next.actions.map((x) => [x.member, x.ok])).toEqual([
			['deny-1', true],
			['deny-2', true],
		]);
		expect(await c.api.get('pods', 'deny-1')).toBeDefined();
		expect(await c.api.get('pods', 'deny-2')).toBeDefined();
		expect(await leasesOf('deny')).toEqual([]);
		expect(next.status.errors).toEqual([]);
	});

	it('leaves alone a member whose Lease a user holds, even when it is missing', async () => {
		await putLease(c, 'hands', 'hands-1', 'dave@example.com', Date.now(), 3600);
		const ctx = c.context();
		const mark = c.mark();
		const result = await apply(ctx, 'hands', poolSpec({ size: 2 }));
		expect(result.actions.map((x) => x.member)).toEqual(['hands-2']);
		expect(await changed(mark, 'create', 'leases', 'corral-vdi-ct-hands-1')).toBe(0);
		expect((await c.api.get('leases', 'corral-vdi-ct-hands-1'))?.spec).toMatchObject({
			holderIdentity: 'dave@example.com',
		});
	});

	it('never touches an object that has a member name but is not of the pool', async () => {
		const uid = (
			await c.api.create('pods', {
				apiVersion: 'v1',
				kind: 'Pod',
				metadata: { name: 'alien-1', labels: { app: 'other' } },
				spec: { containers: [{ name: 'x', image: 'busybox' }] },
			})
		).metadata.uid;
		expect(uid).toBeDefined();
		const ctx = c.context();
		const expected = [
			"alien-1: a pod of that name is not this pool's; ctpool will not touch it (rename or remove it, or use another pool name)",
		];
		// The PVC made before the pod's create met the stranger is deleted again at once: gone,
		// or going (its pvc-protection finalizer is removed by the controller manager).
		const pvcDeleted = async () => {
			const pvc = await c.api.get('persistentvolumeclaims', 'alien-1-data');
			expect(pvc?.metadata.deletionTimestamp ?? 'gone').toBeTruthy();
			await waitFor(
				async () => !(await c.api.get('persistentvolumeclaims', 'alien-1-data')),
				'PVC alien-1-data gone',
			);
		};
		const first = await apply(ctx, 'alien', poolSpec({ size: 1 }));
		expect(first.errors).toEqual(expected);
		await pvcDeleted();
		// the next pass of the same engine knows the stranger: it takes no Lease and makes nothing
		const mark = c.mark();
		const second = await reconcile(ctx, 'alien');
		expect(second.errors).toEqual(expected);
		expect((await c.ctpoolMutations(mark)).filter((m) => m.name.includes('alien-1'))).toEqual([]);
		expect(await uidOf(c, 'pods', 'alien-1')).toBe(uid);
		expect(await leasesOf('alien')).toEqual([]);
	});
});
