import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../source/sim/store-api.js';
import { simFetch, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';
const env = withSim();

const json = (body: unknown) => ({
	body: JSON.stringify(body),
	headers: { 'Content-Type': 'application/json' },
});

/**
 * Runs `fn` and asserts it stored nothing: the revision, the audit mutations, the store's
 * change feed and an open HTTP watch all stay as they were (the watch's first event after
 * `fn` is a marker write made afterwards).
 */
async function expectNothingStored(fn: () => Promise<void>): Promise<void> {
	const { cluster } = env;
	const controller = new AbortController();
	const res = await fetch(`${cluster.url}/api/v1/namespaces/${NS}/configmaps?watch=1`, {
		headers: { Authorization: `Bearer ${cluster.token}` },
		signal: controller.signal,
	});
	const reader = res.body!.getReader();
	let streamed = '';
	const lines = () => streamed.split('\n').filter(Boolean);
	// Drain the initial ADDED events: every configmap listed at this moment.
	const existing = cluster.store.list('configmaps', { namespace: NS }).length;
	while (lines().length < existing) {
		const { value } = await reader.read();
		streamed += new TextDecoder().decode(value);
	}
	streamed = '';
	const events: SimEvent[] = [];
	const off = cluster.store.onChange((e) => events.push(e));
	const rev = cluster.store.revision();
	const mark = cluster.audit.mark();
	try {
		await fn();
	} finally {
		off();
	}
	expect(cluster.store.revision()).toBe(rev);
	expect(cluster.audit.since(mark).mutations).toEqual([]);
	expect(events).toEqual([]);
	const marker = `marker-${rev}`;
	const made = await simFetch(cluster, `/api/v1/namespaces/${NS}/configmaps`, {
		method: 'POST',
		...json({ metadata: { name: marker } }),
	});
	expect(made.status).toBe(201);
	while (!streamed.includes(marker)) {
		const { value } = await reader.read();
		streamed += new TextDecoder().decode(value);
	}
	controller.abort();
	const first = JSON.parse(lines()[0]!) as { type: string; object: { metadata: { name: string } } };
	expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: marker } } });
}

async function setup(name: string): Promise<void> {
	const r = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps`, {
		method: 'POST',
		...json({ metadata: { name, labels: { dry: 'run' } }, data: { a: '1' } }),
	});
	expect(r.status).toBe(201);
}

describe('dryRun=All stores nothing and answers as a real server', () => {
	it('POST: the object as it would be stored, with defaults and no resourceVersion', async () => {
		let body: Record<string, unknown> = {};
		await expectNothingStored(async () => {
			const r = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/pods?dryRun=All`, {
				method: 'POST',
				...json({
					metadata: { name: 'dry-pod' },
					spec: { containers: [{ name: 'ct', image: 'busybox:1' }] },
				}),
			});
			expect(r.status).toBe(201);
			body = r.json() as Record<string, unknown>;
		});
		expect(body).toMatchObject({
			kind: 'Pod',
			metadata: { name: 'dry-pod', namespace: NS, generation: 1 },
			spec: { restartPolicy: 'Always', containers: [{ imagePullPolicy: 'IfNotPresent' }] },
			status: { phase: 'Pending' },
		});
		const meta = body.metadata as Record<string, unknown>;
		expect(meta.uid).toEqual(expect.any(String));
		expect(meta.creationTimestamp).toEqual(expect.any(String));
		expect(meta.resourceVersion).toBeUndefined();
		expect(env.cluster.store.get('pods', NS, 'dry-pod')).toBeUndefined();
	});

	it('POST: validation and conflicts still answer (422, 409)', async () => {
		await setup('dry-exists');
		await expectNothingStored(async () => {
			const bad = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps?dryRun=All`, {
				method: 'POST',
				...json({ metadata: { name: 'Bad_Name' } }),
			});
			expect(bad.status).toBe(422);
			const dup = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps?dryRun=All`, {
				method: 'POST',
				...json({ metadata: { name: 'dry-exists' } }),
			});
			expect(dup.status).toBe(409);
		});
	});

	it('PUT, PATCH and PUT status: the changed object with the unchanged resourceVersion', async () => {
		await setup('dry-put');
		const stored = env.cluster.store.get('configmaps', NS, 'dry-put')!;
		await expectNothingStored(async () => {
			const put = await simFetch(
				env.cluster,
				`/api/v1/namespaces/${NS}/configmaps/dry-put?dryRun=All`,
				{ method: 'PUT', ...json({ ...stored, data: { a: '2' } }) },
			);
			expect(put.status).toBe(200);
			expect(put.json()).toMatchObject({
				data: { a: '2' },
				metadata: { resourceVersion: stored.metadata.resourceVersion },
			});
			for (const type of [
				'application/merge-patch+json',
				'application/strategic-merge-patch+json',
			]) {
				const patch = await simFetch(
					env.cluster,
					`/api/v1/namespaces/${NS}/configmaps/dry-put?dryRun=All`,
					{
						method: 'PATCH',
						body: JSON.stringify({ data: { b: '3' } }),
						headers: { 'Content-Type': type },
					},
				);
				expect(patch.status).toBe(200);
				expect(patch.json()).toMatchObject({ data: { a: '1', b: '3' } });
			}
			const jsonPatch = await simFetch(
				env.cluster,
				`/api/v1/namespaces/${NS}/configmaps/dry-put?dryRun=All`,
				{
					method: 'PATCH',
					body: JSON.stringify([{ op: 'replace', path: '/data/a', value: '9' }]),
					headers: { 'Content-Type': 'application/json-patch+json' },
				},
			);
			expect(jsonPatch.json()).toMatchObject({ data: { a: '9' } });
			// PUT that would create (leases allow create on update)
			const lease = await simFetch(
				env.cluster,
				`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/dry-lease?dryRun=All`,
				{ method: 'PUT', ...json({ metadata: { name: 'dry-lease' }, spec: {} }) },
			);
			expect(lease.status).toBe(201);
			const ns = env.cluster.store.get('namespaces', undefined, NS)!;
			const status = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/status?dryRun=All`, {
				method: 'PUT',
				...json({ ...ns, status: { phase: 'Terminating' } }),
			});
			expect(status.status).toBe(200);
			expect(status.json()).toMatchObject({ status: { phase: 'Terminating' } });
		});
		expect(env.cluster.store.get('configmaps', NS, 'dry-put')?.data).toEqual({ a: '1' });
		expect(env.cluster.store.get('leases', NS, 'dry-lease')).toBeUndefined();
	});

	it('DELETE and deletecollection: the Status or the object, and the object stays', async () => {
		await setup('dry-del');
		const pod = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/pods`, {
			method: 'POST',
			...json({
				metadata: { name: 'dry-del-pod' },
				spec: { containers: [{ name: 'ct', image: 'busybox:1' }] },
			}),
		});
		expect(pod.status).toBe(201);
		await waitFor(
			() =>
				(env.cluster.store.get('pods', NS, 'dry-del-pod')?.status as { phase?: string })?.phase ===
				'Running',
			{ what: 'the pod running' },
		);
		await expectNothingStored(async () => {
			const cm = await simFetch(
				env.cluster,
				`/api/v1/namespaces/${NS}/configmaps/dry-del?dryRun=All`,
				{ method: 'DELETE' },
			);
			expect(cm.status).toBe(200);
			expect(cm.json()).toMatchObject({
				kind: 'Status',
				status: 'Success',
				details: { name: 'dry-del', kind: 'configmaps' },
			});
			// DeleteOptions in the body, as kubectl sends them
			const p = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/pods/dry-del-pod`, {
				method: 'DELETE',
				...json({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }),
			});
			expect(p.status).toBe(200);
			const obj = p.json() as { metadata: Record<string, unknown> };
			expect(obj.metadata.deletionTimestamp).toEqual(expect.any(String));
			const spec = env.cluster.store.get('pods', NS, 'dry-del-pod')?.spec as {
				terminationGracePeriodSeconds: number;
			};
			expect(obj.metadata.deletionGracePeriodSeconds).toBe(spec.terminationGracePeriodSeconds);
			const all = await simFetch(
				env.cluster,
				`/api/v1/namespaces/${NS}/configmaps?dryRun=All&labelSelector=dry%3Drun`,
				{ method: 'DELETE' },
			);
			expect(all.status).toBe(200);
			expect((all.json() as { items: unknown[] }).items.length).toBeGreaterThan(0);
			const nsDel = await simFetch(env.cluster, `/api/v1/namespaces/${NS}?dryRun=All`, {
				method: 'DELETE',
			});
			expect(nsDel.status).toBe(200);
			expect(nsDel.json()).toMatchObject({ status: { phase: 'Terminating' } });
		});
		expect(env.cluster.store.get('configmaps', NS, 'dry-del')).toBeDefined();
		const live = env.cluster.store.get('pods', NS, 'dry-del-pod')!;
		expect(live.metadata.deletionTimestamp).toBeUndefined();
	});

	it('rejects a dryRun other than All with the real 422 on the options kind', async () => {
		await expectNothingStored(async () => {
			const r = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps?dryRun=true`, {
				method: 'POST',
				...json({ metadata: { name: 'never' } }),
			});
			expect(r.status).toBe(422);
			expect(r.json()).toMatchObject({
				reason: 'Invalid',
				message:
					'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["true"]: supported values: "All"',
			});
			const d = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/configmaps/x`, {
				method: 'DELETE',
				...json({ dryRun: ['Some'] }),
			});
			expect(d.status).toBe(422);
			expect((d.json() as { message: string }).message).toMatch(/^DeleteOptions\.meta\.k8s\.io/);
		});
	});
});
