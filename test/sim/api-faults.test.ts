import { ApiException, CoreV1Api, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFaultSpec } from '../../source/sim/faults.js';
import { kubeConfigFor, simFetch, startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

let sim: TestSim | undefined;
afterEach(async () => {
	await sim?.cleanup();
	sim = undefined;
});

async function openWatch(s: TestSim, query: Record<string, string> = {}) {
	const kc = await kubeConfigFor(s);
	const events: { type: string; object: { code?: number; reason?: string } }[] = [];
	let done: unknown = 'open';
	const controller = await new Watch(kc).watch(
		`/api/v1/namespaces/${NS}/configmaps`,
		query,
		(type, object) => events.push({ type, object }),
		(err) => {
			done = err;
		},
	);
	return {
		events,
		ended: () => done !== 'open',
		error: () => done,
		abort: () => controller.abort(),
	};
}

describe('fault switch', () => {
	it('dropWatches ends every open watch abruptly and counts them', async () => {
		sim = await startTestSim();
		const a = await openWatch(sim);
		const b = await openWatch(sim);
		await waitFor(() => sim!.cluster.openWatches() === 2, { what: 'two open watches' });
		expect(sim.cluster.faults.dropWatches()).toBe(2);
		await waitFor(() => a.ended() && b.ended(), { what: 'both watches to end' });
		expect(sim.cluster.faults.counts.droppedWatches).toBe(2);
		expect(sim.cluster.openWatches()).toBe(0);
	});

	it('dropWatchesEveryMs keeps dropping watches until cleared', async () => {
		sim = await startTestSim();
		sim.cluster.faults.set({ dropWatchesEveryMs: 50 });
		const w = await openWatch(sim);
		await waitFor(() => w.ended(), { what: 'the periodic drop' });
		expect(sim.cluster.faults.counts.droppedWatches).toBeGreaterThanOrEqual(1);
		sim.cluster.faults.clear();
		const kept = await openWatch(sim);
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'still' } } });
		await waitFor(() => kept.events.length === 1, { what: 'an event on a kept watch' });
		expect(kept.ended()).toBe(false);
		kept.abort();
	});

	it('errorRate answers non-watch requests 500 or 503 with a Status body', async () => {
		sim = await startTestSim();
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		sim.cluster.faults.set({ errorRate: 1, seed: 42 });
		const codes = new Set<number>();
		for (let i = 0; i < 20; i++) {
			try {
				await core.listNamespacedPod({ namespace: NS });
				codes.add(200);
			} catch (e) {
				expect(e).toBeInstanceOf(ApiException);
				const err = e as ApiException<string>;
				codes.add(err.code);
				const body = JSON.parse(err.body) as { kind: string; reason: string };
				expect(body.kind).toBe('Status');
				expect(['InternalError', 'ServiceUnavailable']).toContain(body.reason);
			}
		}
		expect([...codes].sort()).toEqual([500, 503]);
		expect(sim.cluster.faults.counts.errors).toBe(20);
		// watches are spared
		const w = await openWatch(sim);
		await waitFor(() => sim!.cluster.openWatches() === 1, { what: 'a watch despite errorRate 1' });
		w.abort();
		sim.cluster.faults.set({ errorRate: 0 });
		expect((await core.listNamespacedPod({ namespace: NS })).kind).toBe('PodList');
	});

	it('errorRate with a seed fails the same requests each time', async () => {
		sim = await startTestSim();
		const run = async () => {
			sim!.cluster.faults.set({ errorRate: 0.5, seed: 7 });
			const out: number[] = [];
			for (let i = 0; i < 12; i++)
				out.push((await simFetch(sim!.cluster, '/api/v1/namespaces')).status);
			return out;
		};
		const first = await run();
		expect(first).toContain(200);
		expect(first.some((c) => c >= 500)).toBe(true);
		expect(await run()).toEqual(first);
	});

	it('latencyMs delays every answer and counts it', async () => {
		sim = await startTestSim();
		sim.cluster.faults.set({ latencyMs: 30 });
		const before = sim.cluster.faults.counts.delayed;
		const res = await simFetch(sim.cluster, '/api/v1/namespaces/corral/configmaps');
		expect(res.status).toBe(200);
		expect(sim.cluster.faults.counts.delayed).toBe(before + 1);
		sim.cluster.faults.set({ latencyMs: 0 });
		await simFetch(sim.cluster, '/api/v1/namespaces/corral/configmaps');
		expect(sim.cluster.faults.counts.delayed).toBe(before + 1);
	});

	it('force410 answers a watch from an RV the history still has with 410', async () => {
		sim = await startTestSim();
		const rv = String(sim.cluster.store.revision());
		sim.cluster.faults.force410Once();
		const once = await openWatch(sim, { resourceVersion: rv });
		await waitFor(() => once.ended(), { what: 'the forced 410' });
		expect(once.events[0]).toMatchObject({
			type: 'ERROR',
			object: { code: 410, reason: 'Expired' },
		});
		const normal = await openWatch(sim, { resourceVersion: rv });
		await waitFor(() => sim!.cluster.openWatches() === 1, { what: 'a normal watch' });
		normal.abort();
		sim.cluster.faults.set({ force410: true });
		const forced = await openWatch(sim, { resourceVersion: rv });
		await waitFor(() => forced.ended(), { what: 'the forced 410' });
		expect(forced.events[0]?.object.code).toBe(410);
		expect(sim.cluster.faults.counts.forced410).toBe(2);
	});

	it('refuseConnectionsFor drops connections for a while, then serves again', async () => {
		sim = await startTestSim();
		const w = await openWatch(sim);
		await waitFor(() => sim!.cluster.openWatches() === 1, { what: 'an open watch' });
		sim.cluster.faults.refuseConnectionsFor(1500);
		await expect(simFetch(sim.cluster, '/api/v1/namespaces')).rejects.toThrow();
		await waitFor(() => w.ended(), { what: 'the watch to be cut' });
		expect(sim.cluster.faults.counts.refusedConnections).toBeGreaterThanOrEqual(1);
		const ok = await waitFor(
			async () => (await simFetch(sim!.cluster, '/api/v1/namespaces')).status === 200,
			{
				what: 'connections accepted again',
			},
		);
		expect(ok).toBe(true);
	});

	it('parses --fault specs', () => {
		expect(
			parseFaultSpec('drop-watches-every=5s,error-rate=0.05,latency=50ms,force-410,seed=3'),
		).toEqual({
			dropWatchesEveryMs: 5000,
			errorRate: 0.05,
			latencyMs: 50,
			force410: true,
			seed: 3,
		});
		expect(() => parseFaultSpec('error-rate=2')).toThrow(/error-rate/);
		expect(() => parseFaultSpec('explode=1')).toThrow(/unknown fault/);
	});
});

describe('audit log', () => {
	it('records mutations with who, verb, RV and code; requests by kind; marks', async () => {
		sim = await startTestSim();
		const core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
		const audit = sim.cluster.audit;
		const mark = audit.mark();
		const cm = await core.createNamespacedConfigMap({
			namespace: NS,
			body: { metadata: { name: 'aud' }, data: { a: '1' } },
		});
		const ua = {
			'User-Agent': 'ctpool/0.1.0 (test)',
			'Content-Type': 'application/merge-patch+json',
		};
		await simFetch(sim.cluster, '/api/v1/namespaces/corral/configmaps/aud', {
			method: 'PATCH',
			headers: ua,
			body: JSON.stringify({ data: { a: '2' } }),
		});
		// a patch that changes nothing: recorded, but not as a change
		await simFetch(sim.cluster, '/api/v1/namespaces/corral/configmaps/aud', {
			method: 'PATCH',
			headers: ua,
			body: JSON.stringify({ data: { a: '2' } }),
		});
		await simFetch(sim.cluster, '/api/v1/namespaces/corral/configmaps', {
			method: 'POST',
			headers: { 'User-Agent': 'ctpool/0.1.0', 'Content-Type': 'application/json' },
			body: JSON.stringify({ metadata: { name: 'aud' } }),
		});
		const { mutations, requests } = audit.since(mark);
		const mine = mutations.filter((m) => m.resource === 'configmaps' && m.name === 'aud');
		expect(mine.map((m) => [m.verb, m.code, m.changed])).toEqual([
			['create', 201, true],
			['patch', 200, true],
			['patch', 200, false],
			['create', 409, false],
		]);
		expect(mine[0]?.resourceVersion).toBe(cm.metadata?.resourceVersion);
		expect(mine[1]?.who).toBe('ctpool');
		expect(mine[2]?.resourceVersion).toBe(mine[1]?.resourceVersion);
		expect(requests.filter((r) => r.resource === 'configmaps').map((r) => r.verb)).toEqual([
			'create',
			'patch',
			'patch',
			'create',
		]);

		// controllers' writes carry their own who
		await core.createNamespacedPod({
			namespace: NS,
			body: {
				metadata: { name: 'aud-pod' },
				spec: { containers: [{ name: 'ct', image: 'busybox:1' }] },
			},
		});
		await waitFor(
			() => audit.mutations().some((m) => m.name === 'aud-pod' && m.who.startsWith('system:')),
			{
				what: 'a controller write',
			},
		);
		const after = audit.mark();
		await simFetch(sim.cluster, '/api/v1/namespaces/corral/configmaps/aud');
		expect(audit.since(after).requests.map((r) => r.verb)).toEqual(['get']);
		expect(audit.since(after).mutations.filter((m) => !m.who.startsWith('system:'))).toEqual([]);
	});

	it('counts an open watch as a request as soon as it starts', async () => {
		sim = await startTestSim();
		const mark = sim.cluster.audit.mark();
		const w = await openWatch(sim);
		await waitFor(() => sim!.cluster.openWatches() === 1, { what: 'an open watch' });
		const reqs = sim.cluster.audit.since(mark).requests;
		expect(reqs.map((r) => `${r.verb} ${r.resource} ${r.code}`)).toEqual(['watch configmaps 200']);
		w.abort();
	});
});
