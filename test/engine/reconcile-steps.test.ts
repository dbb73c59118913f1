import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, reconcile, setMaintenance } from '../../source/engine/index.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { objects, uidOf, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

async function sourceOf(name: string): Promise<string | undefined> {
	return (await c.api.get('pods', name))?.metadata.labels?.['corral.dev/vdi-ct-source'];
}

describe('reconcile steps', () => {
	it('replaces drifted unclaimed members and keeps a claimed drifted member', async () => {
		const ctx = c.context();
		const v1 = poolSpec({ size: 3 });
		await apply(ctx, 'drift', v1);
		await waitReady(ctx, 'drift', 3);
		const { member } = await claim(ctx, 'drift', 'alice@example.com');
		const claimedPod = await uidOf(c, 'pods', member);
		const claimedPvc = await uidOf(c, 'persistentvolumeclaims', `${member}-data`);
		const others = ['drift-1', 'drift-2', 'drift-3'].filter((m) => m !== member);
		const before = await Promise.all(others.map((m) => uidOf(c, 'pods', m)));

		// maxUnavailable 3: every drifted member in one reconcile (the rollout's pacing is in rollout.test.ts)
		const v2 = poolSpec({ size: 3, image: 'ghcr.io/example/desktop:2', maxUnavailable: 3 });
		const result = await apply(ctx, 'drift', v2);
		expect(result.errors).toEqual([]);
		expect(result.actions.map((a) => [a.member, a.step]).sort()).toEqual(
			others.map((m) => [m, 'replace']),
		);
		const newHash = sourceHash(sourceFields(v2));
		for (const [i, m] of others.entries()) {
			expect(await uidOf(c, 'pods', m)).not.toBe(before[i]);
			expect(await sourceOf(m)).toBe(newHash);
		}
		// The claimed member is untouched: same pod, same PVC, old source, still drifted.
		expect(await uidOf(c, 'pods', member)).toBe(claimedPod);
		expect(await uidOf(c, 'persistentvolumeclaims', `${member}-data`)).toBe(claimedPvc);
		expect(await sourceOf(member)).toBe(sourceHash(sourceFields(v1)));
		const row = result.status.members.find((m) => m.name === member)!;
		expect(row).toMatchObject({ holder: 'alice@example.com', drifted: true });
	});

	it('scale-down deletes unclaimed members above size and keeps claimed ones', async () => {
		const ctx = c.context();
		await apply(ctx, 'shrink', poolSpec({ size: 4 }));
		await waitReady(ctx, 'shrink', 4);
		// Claim until shrink-4 is held (claims go lowest index first among Ready members).
		for (const who of ['a@x', 'b@x', 'c@x', 'd@x']) await claim(ctx, 'shrink', who);
		await c.api.delete('leases', 'corral-vdi-ct-shrink-3');
		await c.api.delete('leases', 'corral-vdi-ct-shrink-2');
		// Now shrink-1 and shrink-4 are claimed; shrink-2 and shrink-3 are free.
		const result = await apply(ctx, 'shrink', poolSpec({ size: 1 }));
		expect(result.errors).toEqual([]);
		expect(result.actions.map((a) => [a.member, a.step])).toEqual([
			['shrink-2', 'delete'],
			['shrink-3', 'delete'],
		]);
		const pods = [...(await objects(c, 'pods')).keys()].filter((n) => n.startsWith('shrink-'));
		expect(pods.sort()).toEqual(['shrink-1', 'shrink-4']);
		expect(await c.api.get('persistentvolumeclaims', 'shrink-2-data')).toBeUndefined();
		const row4 = result.status.members.find((m) => m.name === 'shrink-4')!;
		expect(row4).toMatchObject({ aboveSize: true, holder: 'd@x' });
	});

	it('replaces a Failed unclaimed member', async () => {
		const ctx = c.context();
		await apply(ctx, 'fail', poolSpec({ size: 2 }));
		await waitReady(ctx, 'fail', 2);
		const old = await uidOf(c, 'pods', 'fail-2');
		// Its container exits for good: the kubelet reports phase Failed.
		await c.api.patch('pods', 'fail-2', { status: { phase: 'Failed' } }, { subresource: 'status' });
		await waitFor(
			async () =>
				((await c.api.get('pods', 'fail-2'))?.status as { phase?: string })?.phase === 'Failed',
			'fail-2 Failed',
		);
		const result = await reconcile(ctx, 'fail');
		expect(result.errors).toEqual([]);
		expect(result.actions).toEqual([{ member: 'fail-2', step: 'replace', ok: true }]);
		expect(await uidOf(c, 'pods', 'fail-2')).not.toBe(old);
		await waitReady(ctx, 'fail', 2);
	});

	it('starts a Stopped member, claimed ones too, from the source on its PVC', async () => {
		const ctx = c.context();
		await apply(ctx, 'stop', poolSpec({ size: 2 }));
		await waitReady(ctx, 'stop', 2);
		await claim(ctx, 'stop', 'carol@example.com'); // stop-1
		const pvcs = await Promise.all(
			['stop-1-data', 'stop-2-data'].map((n) => uidOf(c, 'persistentvolumeclaims', n)),
		);
		for (const m of ['stop-1', 'stop-2']) await c.api.delete('pods', m, { gracePeriodSeconds: 0 });
		await waitFor(
			async () => !(await c.api.get('pods', 'stop-1')) && !(await c.api.get('pods', 'stop-2')),
			'pods gone',
		);
		const result = await reconcile(ctx, 'stop');
		expect(result.errors).toEqual([]);
		expect(result.actions.map((a) => [a.member, a.step, a.ok])).toEqual([
			['stop-1', 'start', true],
			['stop-2', 'start', true],
		]);
		// The PVCs (the data) are the same; only pods were made.
		expect(
			await Promise.all(
				['stop-1-data', 'stop-2-data'].map((n) => uidOf(c, 'persistentvolumeclaims', n)),
			),
		).toEqual(pvcs);
		expect((await c.api.get('leases', 'corral-vdi-ct-stop-1'))?.spec).toMatchObject({
			holderIdentity: 'carol@example.com',
		});
	});

	it('neither replaces nor deletes a member in maintenance', async () => {
		const ctx = c.context();
		await apply(ctx, 'maint', poolSpec({ size: 2 }));
		await setMaintenance(ctx, 'maint', 'maint-2', true, 'disk check');
		const uid = await uidOf(c, 'pods', 'maint-2');
		const drifted = await apply(
			ctx,
			'maint',
			poolSpec({ size: 2, image: 'ghcr.io/example/desktop:3' }),
		);
		expect(drifted.actions.map((a) => a.member)).toEqual(['maint-1']);
		const shrunk = await apply(
			ctx,
			'maint',
			poolSpec({ size: 1, image: 'ghcr.io/example/desktop:3' }),
		);
		expect(shrunk.actions).toEqual([]);
		expect(await uidOf(c, 'pods', 'maint-2')).toBe(uid);
		expect(shrunk.status.members.find((m) => m.name === 'maint-2')).toMatchObject({
			maintenance: true,
			aboveSize: true,
			drifted: true,
		});
		await setMaintenance(ctx, 'maint', 'maint-2', false);
		const after = await reconcile(ctx, 'maint');
		expect(after.actions).toEqual([{ member: 'maint-2', step: 'delete', ok: true }]);
	});
});
