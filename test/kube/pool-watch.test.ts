import { afterEach, describe, expect, test } from 'vitest';
import { type Kube, loadKube } from '../../source/kube/config.js';
import type { KubeObject } from '../../source/kube/objects.js';
import {
	type ConnectionState,
	type PoolWatch,
	type PoolWatchOptions,
	startPoolWatch,
	type WatchChange,
	type WatchKind,
} from '../../source/kube/pool-watch.js';
import type { SimCluster, StartSimOptions } from '../../source/sim/index.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const POOL = 'corral.dev/vdi-ct-pool';
const NS = 'corral';

/** What a sink saw: the objects it holds per kind, every delivery and every state. */
class Recorder {
	readonly objects: Record<WatchKind, Map<string, KubeObject>> = {
		pods: new Map(),
		persistentvolumeclaims: new Map(),
		configmaps: new Map(),
		leases: new Map(),
	};
	readonly changes: WatchChange[] = [];
	readonly states: ConnectionState[] = [];
	readonly byKind: Array<Record<WatchKind, ConnectionState>> = [];
	batches = 0;
	/** name@resourceVersion of every upsert and delete, to find one delivered twice. */
	readonly deliveries: string[] = [];

	onBatch(changes: WatchChange[]): void {
		this.batches++;
		for (const c of changes) {
			this.changes.push(c);
			const held = this.objects[c.kind];
			if (c.op === 'reset') {
				held.clear();
				for (const o of c.objects) held.set(o.metadata.name ?? '', o);
			} else {
				this.deliveries.push(
					`${c.kind}/${c.object.metadata.name}@${c.object.metadata.resourceVersion}`,
				);
				if (c.op === 'upsert') held.set(c.object.metadata.name ?? '', c.object);
				else held.delete(c.object.metadata.name ?? '');
			}
		}
	}

	onConnection(overall: ConnectionState, byKind: Record<WatchKind, ConnectionState>): void {
		this.states.push(overall);
		this.byKind.push(byKind);
	}

	resets(kind: WatchKind): number {
		return this.changes.filter((c) => c.kind === kind && c.op === 'reset').length;
	}

	/** name -> resourceVersion of what the sink holds of a kind. */
	held(kind: WatchKind): Record<string, string | undefined> {
		return Object.fromEntries(
			[...this.objects[kind]].map(([n, o]) => [n, o.metadata.resourceVersion]),
		);
	}
}

let testSim: TestSim | undefined;
let sim: SimCluster | undefined;
let watch: PoolWatch | undefined;

afterEach(async () => {
	watch?.stop();
	watch = undefined;
	await testSim?.cleanup();
	testSim = undefined;
	sim = undefined;
});

async function setup(
	simOpts: StartSimOptions = {},
): Promise<{ sim: SimCluster; kube: Kube; rec: Recorder }> {
	testSim = await startTestSim({ bookmarkIntervalMs: undefined, ...simOpts });
	sim = testSim.cluster;
	const kube = await loadKube({ kubeconfig: sim.kubeconfigPath, requestTimeoutMs: 10_000 });
	return { sim, kube, rec: new Recorder() };
}

function start(kube: Kube, rec: Recorder, opts: Partial<PoolWatchOptions> = {}): PoolWatch {
	watch = startPoolWatch(
		kube,
		{ namespace: NS, pool: 'desk', batchMs: 20, backoffMs: { initial: 20, max: 200 }, ...opts },
		rec,
	);
	return watch;
}

function configMap(name: string, pool = 'desk', data: Record<string, string> = {}) {
	return {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name, namespace: NS, labels: { [POOL]: pool } },
		data,
	};
}

/** name -> resourceVersion of what the cluster holds of a kind for pool desk, listed afresh. */
async function listed(kube: Kube, kind: WatchKind): Promise<Record<string, string | undefined>> {
	const labelSelector = `${POOL}=desk`;
	const list =
		kind === 'configmaps'
			? await kube.core.listNamespacedConfigMap({ namespace: NS, labelSelector })
			: kind === 'pods'
				? await kube.core.listNamespacedPod({ namespace: NS, labelSelector })
				: kind === 'persistentvolumeclaims'
					? await kube.core.listNamespacedPersistentVolumeClaim({ namespace: NS, labelSelector })
					: await kube.coordination.listNamespacedLease({ namespace: NS, labelSelector });
	return Object.fromEntries(
		(list.items as KubeObject[]).map((o) => [o.metadata.name, o.metadata.resourceVersion]),
	);
}

const synced = (rec: Recorder) => rec.states.at(-1)?.phase === 'synced';

describe('startPoolWatch', () => {
	test('sees ADDED, MODIFIED and DELETED of every kind as plain JSON, only for its pool', async () => {
		const { kube, rec } = await setup();
		await kube.core.createNamespacedConfigMap({
			namespace: NS,
			body: configMap('corral-vdi-ctpool-desk'),
		});
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('other', 'lab') });
		start(kube, rec);
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect(rec.byKind.at(-1)).toMatchObject({
			pods: { phase: 'synced' },
			persistentvolumeclaims: { phase: 'synced' },
			configmaps: { phase: 'synced' },
			leases: { phase: 'synced' },
		});
		expect([...rec.objects.configmaps.keys()]).toEqual(['corral-vdi-ctpool-desk']);

		// ADDED: a pod (the simulated kubelet then starts it: MODIFIED) and a Lease.
		await kube.core.createNamespacedPod({
			namespace: NS,
			body: {
				metadata: { name: 'desk-1', labels: { [POOL]: 'desk' } },
				spec: { containers: [{ name: 'ct', image: 'ghcr.io/example/desktop:1' }] },
			},
		});
		const micro = new Date().toISOString().replace('Z', '000Z');
		await kube.coordination.createNamespacedLease({
			namespace: NS,
			body: {
				metadata: { name: 'corral-vdi-ct-desk-1', labels: { [POOL]: 'desk' } },
				spec: {
					holderIdentity: 'alice@example.com',
					leaseDurationSeconds: 3600,
					acquireTime: micro as unknown as Date,
				},
			},
		});
		await waitFor(
			() => {
				const pod = rec.objects.pods.get('desk-1') as { status?: { phase?: string } } | undefined;
				return pod?.status?.phase === 'Running';
			},
			{ what: 'the pod running', intervalMs: 10, maxIntervalMs: 10, timeoutMs: 15_000 },
		);
		const pod = rec.objects.pods.get('desk-1')!;
		expect(pod.kind).toBe('Pod');
		expect(typeof pod.metadata.creationTimestamp).toBe('string');
		const lease = rec.objects.leases.get('corral-vdi-ct-desk-1') as unknown as {
			spec: { holderIdentity: string; acquireTime: unknown };
		};
		expect(lease.spec.holderIdentity).toBe('alice@example.com');
		expect(typeof lease.spec.acquireTime).toBe('string');

		// MODIFIED.
		await kube.core.replaceNamespacedConfigMap({
			name: 'corral-vdi-ctpool-desk',
			namespace: NS,
			body: configMap('corral-vdi-ctpool-desk', 'desk', { spec: '{"size":2}' }),
		});
		await waitFor(
			() => {
				const cm = rec.objects.configmaps.get('corral-vdi-ctpool-desk') as
					| { data?: Record<string, string> }
					| undefined;
				return cm?.data?.spec === '{"size":2}';
			},
			{ what: 'the new data', intervalMs: 10, maxIntervalMs: 10, timeoutMs: 15_000 },
		);

		// DELETED.
		await kube.core.deleteNamespacedConfigMap({ name: 'corral-vdi-ctpool-desk', namespace: NS });
		await waitFor(() => rec.objects.configmaps.size === 0, {
			what: 'the delete',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		const del = rec.changes.findLast((c) => c.kind === 'configmaps');
		expect(del).toMatchObject({
			op: 'delete',
			object: { metadata: { name: 'corral-vdi-ctpool-desk' } },
		});

		// Every request said it was ctpool (audit logs tell it from kubectl).
		const requests = sim!.audit.requests();
		expect(requests.filter((r) => r.verb === 'list').length).toBeGreaterThanOrEqual(4);
		expect(requests.every((r) => r.who === 'ctpool')).toBe(true);

		// The other pool's ConfigMap never arrived.
		expect(rec.changes.some((c) => c.op !== 'reset' && c.object.metadata.name === 'other')).toBe(
			false,
		);
	});

	test('without a pool it watches every pool', async () => {
		const { kube, rec } = await setup();
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('a', 'desk') });
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('b', 'lab') });
		await kube.core.createNamespacedConfigMap({
			namespace: NS,
			body: { metadata: { name: 'unlabelled' } },
		});
		watch = startPoolWatch(kube, { namespace: NS, kinds: ['configmaps'], batchMs: 10 }, rec);
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect([...rec.objects.configmaps.keys()].sort()).toEqual(['a', 'b']);
		expect(Object.keys(rec.byKind.at(-1)!)).toHaveLength(4);
	});

	test('survives dropped watches without losing or duplicating an object', async () => {
		const { sim, kube, rec } = await setup();
		start(kube, rec, { kinds: ['configmaps'] });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		for (let i = 1; i <= 5; i++)
			await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap(`cm-${i}`) });
		await waitFor(() => rec.objects.configmaps.size === 5, {
			what: 'five objects',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});

		// The connection is cut and new ones refused while the cluster keeps changing.
		sim.faults.refuseConnectionsFor(600);
		await waitFor(() => rec.states.at(-1)?.phase === 'reconnecting', {
			what: 'reconnecting',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		const down = rec.states.at(-1);
		expect(down).toMatchObject({ phase: 'reconnecting' });
		if (down?.phase === 'reconnecting') {
			expect(down.attempts).toBeGreaterThanOrEqual(1);
			expect(down.lastError).toMatch(/watch configmaps in namespace corral: /);
		}
		const store = sim.store;
		const cm2 = store.get('configmaps', NS, 'cm-2')!;
		store.update('configmaps', { ...cm2, data: { changed: 'yes' } });
		store.delete('configmaps', NS, 'cm-3');
		store.create('configmaps', configMap('cm-6'));

		await waitFor(() => synced(rec), {
			what: 'synced again',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		sim.faults.dropWatches();
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('cm-7') });
		await waitFor(() => rec.objects.configmaps.has('cm-7'), {
			what: 'cm-7',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});

		const fresh = await listed(kube, 'configmaps');
		await waitFor(
			() => {
				return JSON.stringify(rec.held('configmaps')) === JSON.stringify(fresh);
			},
			{
				what: 'the same state as a fresh list',
				intervalMs: 10,
				maxIntervalMs: 10,
				timeoutMs: 15_000,
			},
		);
		expect(Object.keys(fresh).sort()).toEqual(['cm-1', 'cm-2', 'cm-4', 'cm-5', 'cm-6', 'cm-7']);
		// Resumed from the last resourceVersion: no relist, nothing delivered twice.
		expect(rec.resets('configmaps')).toBe(1);
		expect(new Set(rec.deliveries).size).toBe(rec.deliveries.length);
	});

	test('a watch the server ends on time is resumed from the last resourceVersion', async () => {
		const { sim, kube, rec } = await setup();
		start(kube, rec, { kinds: ['configmaps'], timeoutSeconds: 1 });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		const watchesBefore = () =>
			sim.audit.requests().filter((r) => r.verb === 'watch' && r.resource === 'configmaps').length;
		await waitFor(() => watchesBefore() >= 3, {
			what: 'two watches ended by the server',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 20_000,
		});
		sim.store.create('configmaps', configMap('later'));
		await waitFor(() => rec.objects.configmaps.has('later'), {
			what: 'later',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect(rec.resets('configmaps')).toBe(1);
		expect(rec.states.every((s) => s.phase === 'synced')).toBe(true);
	});

	test('410 Expired relists and the reset removes what vanished meanwhile', async () => {
		const { sim, kube, rec } = await setup();
		start(kube, rec, { kinds: ['configmaps'] });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('keep') });
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('gone') });
		await waitFor(() => rec.objects.configmaps.size === 2, {
			what: 'two objects',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});

		sim.faults.refuseConnectionsFor(300);
		sim.faults.force410Once();
		sim.store.delete('configmaps', NS, 'gone');
		sim.store.create('configmaps', configMap('new'));

		await waitFor(() => rec.resets('configmaps') === 2, {
			what: 'the relist',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect([...rec.objects.configmaps.keys()].sort()).toEqual(['keep', 'new']);
		expect(rec.held('configmaps')).toEqual(await listed(kube, 'configmaps'));
		// A delete event for "gone" never came; the reset alone removed it.
		expect(rec.changes.some((c) => c.op === 'delete')).toBe(false);
	});

	test('a watch cut off for longer than the compaction window gets a real 410 and relists', async () => {
		// A 300 ms window stands for the real 5 minutes; bookmarks keep their real minute.
		const { sim, kube, rec } = await setup({ compactionMs: 300 });
		start(kube, rec, { kinds: ['configmaps'] });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('keep') });
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('gone') });
		await waitFor(() => rec.objects.configmaps.size === 2, {
			what: 'two objects',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		const seen = Number(rec.objects.configmaps.get('gone')?.metadata.resourceVersion);

		// Cut off for longer than the window, while the cluster changes: no fault forces a 410.
		sim.faults.refuseConnectionsFor(1500);
		sim.store.delete('configmaps', NS, 'gone');
		sim.store.create('configmaps', configMap('new'));
		const keep = sim.store.get('configmaps', NS, 'keep')!;
		sim.store.update('configmaps', { ...keep, data: { changed: 'yes' } });

		await waitFor(() => rec.resets('configmaps') === 2, {
			what: 'the relist',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 20_000,
		});
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect(sim.store.compactedRevision()).toBeGreaterThan(seen);
		expect([...rec.objects.configmaps.keys()].sort()).toEqual(['keep', 'new']);
		expect(rec.held('configmaps')).toEqual(await listed(kube, 'configmaps'));
		expect(
			(rec.objects.configmaps.get('keep') as { data?: Record<string, string> }).data?.changed,
		).toBe('yes');
		expect(rec.changes.some((c) => c.op === 'delete')).toBe(false);
		// After the relist it follows changes again.
		sim.store.create('configmaps', configMap('after'));
		await waitFor(() => rec.objects.configmaps.has('after'), {
			what: 'after',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
	});

	test('500s on list: reconnecting with the error, then synced', async () => {
		const { sim, kube, rec } = await setup();
		sim.faults.set({ errorRate: 1 });
		start(kube, rec, { kinds: ['pods', 'configmaps'] });
		await waitFor(() => rec.states.some((s) => s.phase === 'reconnecting' && s.attempts >= 2), {
			what: 'two failed attempts',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		const s = rec.states.findLast((x) => x.phase === 'reconnecting');
		expect(s?.phase === 'reconnecting' && s.lastError).toMatch(
			/^list (pods|configmaps) in namespace corral: server error \(HTTP 50[03]/,
		);
		// The trouble started once; retries do not move "since".
		const firsts = rec.states.filter((x) => x.phase === 'reconnecting').map((x) => x.since);
		expect(new Set(firsts).size).toBe(1);
		sim.faults.set({ errorRate: 0 });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect(watch?.connection().phase).toBe('synced');
	});

	test('403 names the missing permission, and recovers when it is granted', async () => {
		const { sim, kube, rec } = await setup({ config: { timeScale: 0.01, deny: ['list pods'] } });
		start(kube, rec);
		await waitFor(
			() => {
				const k = rec.byKind.at(-1);
				return (
					rec.states.at(-1)?.phase === 'failed' &&
					k?.configmaps.phase === 'synced' &&
					k.leases.phase === 'synced' &&
					k.persistentvolumeclaims.phase === 'synced'
				);
			},
			{
				what: 'failed, the other kinds synced',
				intervalMs: 10,
				maxIntervalMs: 10,
				timeoutMs: 15_000,
			},
		);
		const failed = rec.states.at(-1);
		expect(failed).toMatchObject({
			phase: 'failed',
			reason:
				'forbidden: cannot list pods in namespace corral (ask for the "list" permission on pods; the viewer tier has it: ctpool rbac --tier viewer -n corral)',
		});
		// The other kinds are fine; only pods failed.
		expect(rec.byKind.at(-1)).toMatchObject({
			pods: { phase: 'failed' },
			configmaps: { phase: 'synced' },
			leases: { phase: 'synced' },
			persistentvolumeclaims: { phase: 'synced' },
		});
		sim.config.deny = [];
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect(rec.resets('pods')).toBe(1);
	});

	test('the cluster unreachable at start: reconnecting, then synced when it answers', async () => {
		const { sim, kube, rec } = await setup();
		sim.faults.refuseConnectionsFor(500);
		start(kube, rec, { kinds: ['configmaps'] });
		await waitFor(() => rec.states.at(-1)?.phase === 'reconnecting', {
			what: 'reconnecting',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		const s = rec.states.at(-1);
		expect(s?.phase === 'reconnecting' && s.lastError).toMatch(/cluster/);
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
	});

	test('the watchdog restarts a silent stream', async () => {
		const { sim, kube, rec } = await setup({ bookmarkIntervalMs: 60_000 });
		start(kube, rec, { kinds: ['configmaps'], silenceMs: 300 });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		await waitFor(
			() =>
				rec.states.some(
					(s) => s.phase === 'reconnecting' && s.lastError.includes('no event or bookmark'),
				),
			{ what: 'a restart for silence', intervalMs: 10, maxIntervalMs: 10, timeoutMs: 15_000 },
		);
		await waitFor(() => synced(rec), {
			what: 'synced again',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		// Nothing was lost across the restarts.
		sim.store.create('configmaps', configMap('after'));
		await waitFor(() => rec.objects.configmaps.has('after'), {
			what: 'after',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		expect(rec.resets('configmaps')).toBe(1);
	});

	test('stop() ends every request and timer, and the sink hears nothing more', async () => {
		const { sim, kube, rec } = await setup();
		const before = countResources();
		const w = start(kube, rec, { silenceMs: 5_000 });
		await waitFor(() => synced(rec), {
			what: 'synced',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		await waitFor(() => sim.openWatches() === 4, {
			what: 'four watches open',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		w.stop();
		await waitFor(() => sim.openWatches() === 0, {
			what: 'the watches closed on the server',
			intervalMs: 10,
			maxIntervalMs: 10,
			timeoutMs: 15_000,
		});
		await waitFor(
			() => {
				const after = countResources();
				return after.Timeout <= before.Timeout && after.TCPSocketWrap <= before.TCPSocketWrap;
			},
			{
				what: 'no timer or socket of ours left',
				intervalMs: 10,
				maxIntervalMs: 10,
				timeoutMs: 15_000,
			},
		);
		const seen = rec.batches;
		const states = rec.states.length;
		sim.store.create('configmaps', configMap('late'));
		await new Promise((r) => setTimeout(r, 100));
		expect(rec.batches).toBe(seen);
		expect(rec.states.length).toBe(states);
	});
});

function countResources(): { Timeout: number; TCPSocketWrap: number } {
	const all = process.getActiveResourcesInfo();
	return {
		Timeout: all.filter((r) => r === 'Timeout').length,
		TCPSocketWrap: all.filter((r) => r === 'TCPSocketWrap').length,
	};
}
