import { CoreV1Api, type KubernetesObject, ListWatch, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeConfigFor, simFetch, startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

interface Seen {
	type: string;
	name: string;
	rv: string;
	object: {
		metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
		code?: number;
		reason?: string;
		message?: string;
	};
}

/** Watches through client-node's Watch and records every event until stopped. */
async function watchWith(
	sim: TestSim,
	path: string,
	query: Record<string, string | number | boolean>,
) {
	const kc = await kubeConfigFor(sim);
	const seen: Seen[] = [];
	let doneErr: unknown = 'open';
	const controller = await new Watch(kc).watch(
		path,
		query,
		(type, object) => {
			seen.push({
				type,
				name: object?.metadata?.name ?? '',
				rv: object?.metadata?.resourceVersion ?? '',
				object,
			});
		},
		(err) => {
			doneErr = err;
		},
	);
	return {
		seen,
		done: () => doneErr !== 'open',
		error: () => doneErr,
		stop: () => controller.abort(),
	};
}

let sim: TestSim | undefined;
afterEach(async () => {
	await sim?.cleanup();
	sim = undefined;
});

function cmBody(name: string, labels: Record<string, string> = {}) {
	return { metadata: { name, labels }, data: { a: '1' } };
}

describe('watch', () => {
	it('sends synthetic ADDED for RV unset, then the changes', async () => {
		sim = await startTestSim();
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('before') });
		const w = await watchWith(sim, `/api/v1/namespaces/${NS}/configmaps`, {});
		await waitFor(() => w.seen.length >= 1, { what: 'synthetic ADDED' });
		await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('after') });
		await core.deleteNamespacedConfigMap({ namespace: NS, name: 'before' });
		// Every namespace also holds the controller manager's kube-root-ca.crt.
		const ours = () => w.seen.filter((e) => e.name !== 'kube-root-ca.crt');
		await waitFor(() => ours().length >= 3, { what: 'three events' });
		w.stop();
		expect(ours().map((e) => `${e.type} ${e.name}`)).toEqual([
			'ADDED before',
			'ADDED after',
			'DELETED before',
		]);
	});

	it('replays every change after a resourceVersion from the history', async () => {
		sim = await startTestSim();
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('r-1') });
		const list = await core.listNamespacedConfigMap({ namespace: NS });
		const rv = list.metadata?.resourceVersion ?? '';
		const two = await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('r-2') });
		await core.patchNamespacedConfigMap({
			namespace: NS,
			name: 'r-1',
			body: [{ op: 'add', path: '/data/b', value: '2' }],
		});
		// the watch starts after the changes and still sees them, in order, with their RVs
		const w = await watchWith(sim, `/api/v1/namespaces/${NS}/configmaps`, { resourceVersion: rv });
		await waitFor(() => w.seen.length >= 2, { what: 'replayed events' });
		w.stop();
		expect(w.seen.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED r-2', 'MODIFIED r-1']);
		expect(w.seen[0]?.rv).toBe(two.metadata?.resourceVersion);
		expect(Number(w.seen[1]?.rv)).toBeGreaterThan(Number(two.metadata?.resourceVersion));
	});

	it('answers a too old RV with an in-stream ERROR 410 Expired, and ListWatch relists', async () => {
		sim = await startTestSim({ historySize: 5 });
		const kc = await kubeConfigFor(sim);
		const core = kc.makeApiClient(CoreV1Api);
		const old =
			(await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion ?? '';
		for (let i = 0; i < 8; i++)
			await core.createNamespacedConfigMap({ namespace: NS, body: cmBody(`old-${i}`) });
		const w = await watchWith(sim, `/api/v1/namespaces/${NS}/configmaps`, { resourceVersion: old });
		await waitFor(() => w.done(), { what: 'the stream to end' });
		expect(w.seen).toHaveLength(1);
		expect(w.seen[0]?.type).toBe('ERROR');
		expect(w.seen[0]?.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
		expect(w.seen[0]?.object.message).toMatch(
			new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`),
		);

		// client-node's ListWatch relists after a 410 and ends up with every object
		const path = `/api/v1/namespaces/${NS}/configmaps`;
		let stale = true;
		const lw = new ListWatch<KubernetesObject>(path, new Watch(kc), async () => {
			const l = await core.listNamespacedConfigMap({ namespace: NS });
			if (stale) {
				stale = false;
				return { ...l, metadata: { ...l.metadata, resourceVersion: old } };
			}
			return l;
		});
		await lw.start();
		await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('fresh') });
		await waitFor(() => lw.list(NS).some((o) => o.metadata?.name === 'fresh'), {
			what: 'relisted cache',
		});
		expect(lw.list(NS).filter((o) => o.metadata?.name?.startsWith('old-'))).toHaveLength(8);
		await lw.stop();
	});

	it('sends bookmarks when allowed, one before timeoutSeconds, then ends cleanly', async () => {
		sim = await startTestSim({ bookmarkIntervalMs: 100 });
		const startRv = sim.cluster.store.revision();
		const w = await watchWith(sim, `/api/v1/namespaces/${NS}/pods`, {
			allowWatchBookmarks: true,
			timeoutSeconds: 1,
			resourceVersion: String(sim.cluster.store.revision()),
		});
		await waitFor(() => w.done(), { what: 'timeoutSeconds' });
		expect(w.error()).toBeNull();
		const bookmarks = w.seen.filter((e) => e.type === 'BOOKMARK');
		expect(bookmarks.length).toBeGreaterThanOrEqual(2);
		expect(w.seen.at(-1)?.type).toBe('BOOKMARK');
		expect(bookmarks[0]?.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
		expect(Number(bookmarks.at(-1)?.rv)).toBeGreaterThanOrEqual(startRv);
		expect(Number(bookmarks.at(-1)?.rv)).toBeLessThanOrEqual(sim.cluster.store.revision());
		// without allowWatchBookmarks: none
		const quiet = await watchWith(sim, `/api/v1/namespaces/${NS}/pods`, {
			timeoutSeconds: 1,
			resourceVersion: '1',
		});
		await waitFor(() => quiet.done(), { what: 'timeoutSeconds' });
		expect(quiet.seen.filter((e) => e.type === 'BOOKMARK')).toEqual([]);
	});

	it('turns label changes into ADDED/DELETED for a selector watch', async () => {
		sim = await startTestSim();
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		const w = await watchWith(sim, `/api/v1/namespaces/${NS}/configmaps`, {
			labelSelector: 'pool=desk',
		});
		await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('sel', { pool: 'other' }) });
		await core.patchNamespacedConfigMap({
			namespace: NS,
			name: 'sel',
			body: [{ op: 'replace', path: '/metadata/labels/pool', value: 'desk' }],
		});
		await core.patchNamespacedConfigMap({
			namespace: NS,
			name: 'sel',
			body: [{ op: 'replace', path: '/metadata/labels/pool', value: 'gone' }],
		});
		await waitFor(() => w.seen.length >= 2, { what: 'two events' });
		w.stop();
		expect(w.seen.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
	});

	it('flushes headers at once and writes one JSON document per line', async () => {
		sim = await startTestSim();
		const controller = new AbortController();
		const res = await fetch(
			`${sim.cluster.url}/api/v1/namespaces/${NS}/pods?watch=true&resourceVersion=0`,
			{
				headers: { Authorization: `Bearer ${sim.cluster.token}` },
				signal: controller.signal,
			},
		);
		// the response arrived although no event was written yet
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/json');
		expect(res.headers.get('transfer-encoding')).toBe('chunked');
		const reader = res.body!.getReader();
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		await core.createNamespacedConfigMap({ namespace: NS, body: cmBody('not-a-pod') });
		await core.createNamespacedPod({
			namespace: NS,
			body: {
				metadata: { name: 'line' },
				spec: { containers: [{ name: 'ct', image: 'busybox:1' }] },
			},
		});
		const { value } = await reader.read();
		const text = new TextDecoder().decode(value);
		const first = text.split('\n')[0] ?? '';
		expect(JSON.parse(first)).toMatchObject({
			type: 'ADDED',
			object: { kind: 'Pod', metadata: { name: 'line' } },
		});
		controller.abort();
	});

	it('rejects a watch of an unknown field with 400 before streaming', async () => {
		sim = await startTestSim();
		const res = await simFetch(
			sim.cluster,
			`/api/v1/namespaces/${NS}/pods?watch=1&fieldSelector=spec.bogus%3Dx`,
		);
		expect(res.status).toBe(400);
		expect(res.json()).toMatchObject({ message: 'field label not supported: spec.bogus' });
	});
});
