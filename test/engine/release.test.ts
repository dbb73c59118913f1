import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, reconcile, release, writeDefinition } from '../../source/engine/index.js';
import { startTestCluster, type TestCluster, testContext } from '../support/cluster.js';
import { resourcePath } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { kubeWithout, poolError, putLease, uidOf, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/**
 * The deletion grace periods a pod was marked with after resourceVersion `rv`, in order: its
 * changes since then replayed by a watch (which ends after a second).
 */
async function gracesSince(name: string, rv: string): Promise<number[]> {
	const answer = await c.api.request('GET', resourcePath('pods', c.ns), {
		query: {
			watch: true,
			fieldSelector: `metadata.name=${name}`,
			resourceVersion: rv,
			timeoutSeconds: 1,
		},
	});
	expect(answer.status).toBe(200);
	return answer.text
		.split('\n')
		.filter((l) => l.trim())
		.map(
			(l) =>
				JSON.parse(l) as {
					type: string;
					object: { metadata: { deletionGracePeriodSeconds?: number } };
				},
		)
		.filter((e) => e.type === 'MODIFIED')
		.flatMap((e) => e.object.metadata.deletionGracePeriodSeconds ?? []);
}

describe('release', () => {
	it('destroys the member, waits for the PVC to be gone, creates it again and removes the Lease', async () => {
		const ctx = c.context();
		await apply(ctx, 'rel', poolSpec({ size: 2 }));
		await waitReady(ctx, 'rel', 2);
		const { member } = await claim(ctx, 'rel', 'kim@example.com');
		const oldPod = await uidOf(c, 'pods', member);
		const oldPvc = await uidOf(c, 'persistentvolumeclaims', `${member}-data`);
		const progress: string[] = [];
		const mark = c.mark();
		const result = await release(ctx, 'rel', member, 'kim@example.com', {
			onProgress: (m) => progress.push(m),
		});
		expect(result).toMatchObject({ released: true, recreated: true });
		expect(result.message).toContain(`released ${member}`);
		expect(await uidOf(c, 'pods', member)).not.toBe(oldPod);
		expect(await uidOf(c, 'persistentvolumeclaims', `${member}-data`)).not.toBe(oldPvc);
		expect(await uidOf(c, 'persistentvolumeclaims', `${member}-data`)).toBeDefined();
		expect(await c.api.get('leases', `corral-vdi-ct-${member}`)).toBeUndefined();
		// The order of writes: CAS to the reconciler, deletes, the new PVC only after the old
		// one was gone (its create succeeded under the same name), then the Lease delete.
		const writes = (await c.ctpoolMutations(mark))
			.filter((m) => m.changed && m.resource !== 'events')
			.map((m) => `${m.verb} ${m.resource} ${m.name}`);
		expect(writes[0]).toBe(`update leases corral-vdi-ct-${member}`);
		expect(writes.indexOf(`create persistentvolumeclaims ${member}-data`)).toBeGreaterThan(
			writes.indexOf(`delete persistentvolumeclaims ${member}-data`),
		);
		expect(writes.at(-1)).toBe(`delete leases corral-vdi-ct-${member}`);
		expect(progress).toContain(`deleting PVC ${member}-data`);
		// The PVC no longer names the old holder; the new member is free again.
		expect(
			(await c.api.get('persistentvolumeclaims', `${member}-data`))?.metadata.annotations?.[
				'corral.dev/vdi-assigned-to'
			],
		).toBeUndefined();
		const events = (await c.api.list('events')).filter(
			(e) => (e as { reason?: string }).reason === 'Released',
		) as unknown as Array<{ message: string }>;
		expect(events.some((e) => e.message.includes('kim@example.com'))).toBe(true);
	});

	it('asks for a 1 s grace period on the member pod, never 0, and leaves a foreign pod alone', async () => {
		const ctx = c.context();
		await apply(ctx, 'grace', poolSpec({ size: 2 }));
		await waitReady(ctx, 'grace', 2);
		const { member } = await claim(ctx, 'grace', 'ada@example.com');
		const before = (await c.api.get('pods', member))?.metadata.resourceVersion;
		expect(before).toBeDefined();
		await release(ctx, 'grace', member, 'ada@example.com');
		// The pod was marked with ctpool's grace (its containers stopped before it went).
		expect((await gracesSince(member, before!))[0]).toBe(1);

		// A pod under the other member's name without the pool's labels is not the pool's.
		const other = member === 'grace-1' ? 'grace-2' : 'grace-1';
		await c.api.delete('pods', other, { gracePeriodSeconds: 0 });
		await c.api.create('pods', {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name: other, labels: { app: 'someone-else' } },
			spec: { containers: [{ name: 'x', image: 'busybox:1', command: ['sleep', 'infinity'] }] },
		});
		await putLease(c, 'grace', other, 'bo@example.com', Date.now(), 3600);
		const foreign = await uidOf(c, 'pods', other);
		const result = await release(ctx, 'grace', other, 'bo@example.com').catch((e: Error) => e);
		expect(String((result as { message?: string }).message)).toContain(
			"a pod of that name is not this pool's",
		);
		const still = await c.api.get('pods', other);
		expect(still?.metadata.uid).toBe(foreign);
		expect(still?.metadata.deletionTimestamp).toBeUndefined();
	});

	it('refuses a non-holder without --force; with force it releases', async () => {
		const ctx = c.context();
		await apply(ctx, 'force', poolSpec({ size: 1 }));
		await waitReady(ctx, 'force', 1);
		await claim(ctx, 'force', 'lee@example.com');
		const mark = c.mark();
		const err = await poolError(release(ctx, 'force', 'force-1', 'max@example.com'));
		expect(err.kind).toBe('not-holder');
		expect(err.message).toContain('claimed by lee@example.com');
		expect(err.message).toContain('--force');
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		const forced = await release(ctx, 'force', 'force-1', 'admin@example.com', { force: true });
		expect(forced).toMatchObject({ released: true, recreated: true });
		expect(await c.api.get('leases', 'corral-vdi-ct-force-1')).toBeUndefined();
	});

	it('does nothing for a member without a claim', async () => {
		const ctx = c.context();
		await apply(ctx, 'idle', poolSpec({ size: 1 }));
		const uid = await uidOf(c, 'pods', 'idle-1');
		const mark = c.mark();
		const result = await release(ctx, 'idle', 'idle-1', 'nia@example.com');
		expect(result).toEqual({
			released: false,
			recreated: false,
			message: 'idle-1 has no claim; nothing to do',
		});
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(await uidOf(c, 'pods', 'idle-1')).toBe(uid);
	});

	it('does not create a member above the pool size again', async () => {
		const ctx = c.context();
		await apply(ctx, 'above', poolSpec({ size: 2 }));
		await waitReady(ctx, 'above', 2);
		await claim(ctx, 'above', 'oz@example.com');
		await claim(ctx, 'above', 'pat@example.com'); // above-2
		await writeDefinition(ctx, 'above', poolSpec({ size: 1 }));
		const result = await release(ctx, 'above', 'above-2', 'pat@example.com');
		expect(result).toMatchObject({ released: true, recreated: false });
		expect(await c.api.get('pods', 'above-2')).toBeUndefined();
		expect(await c.api.get('persistentvolumeclaims', 'above-2-data')).toBeUndefined();
		expect(await c.api.get('leases', 'corral-vdi-ct-above-2')).toBeUndefined();
	});

	it('reports a failed re-create, still removes the Lease, and the next reconcile creates the member', async () => {
		const ctx = c.context();
		await apply(ctx, 'recr', poolSpec({ size: 1 }));
		await waitReady(ctx, 'recr', 1);
		await claim(ctx, 'recr', 'quinn@example.com');
		// Released by an operator whose Role lacks PVC create: the cluster refuses the re-create.
		const denied = testContext(
			await kubeWithout(c, 'no-pvc-create', 'create', 'persistentvolumeclaims'),
		);
		const err = await poolError(release(denied, 'recr', 'recr-1', 'quinn@example.com'));
		expect(err.kind).toBe('failed');
		expect(err.message).toContain('creating it again failed');
		expect(err.message).toContain('the next reconcile creates it');
		expect(err.message).toContain(
			`forbidden: cannot create persistentvolumeclaims in namespace ${c.ns}`,
		);
		expect(await c.api.get('persistentvolumeclaims', 'recr-1-data')).toBeUndefined();
		expect(await c.api.get('leases', 'corral-vdi-ct-recr-1')).toBeUndefined();
		const r = await reconcile(ctx, 'recr');
		expect(r.actions).toEqual([{ member: 'recr-1', step: 'create', ok: true }]);
	});

	it('refuses while a live reconciler holds the Lease', async () => {
		const ctx = c.context();
		await apply(ctx, 'rbusy', poolSpec({ size: 1 }));
		await putLease(c, 'rbusy', 'rbusy-1', 'corral-vdi/reconciler', Date.now(), 600);
		const err = await poolError(
			release(ctx, 'rbusy', 'rbusy-1', 'rae@example.com', { force: true }),
		);
		expect(err.kind).toBe('busy');
	});
});
