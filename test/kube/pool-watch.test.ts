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
import { type SimCluster, type StartSimOptions, startSimCluster } from '../../source/sim/index.js';

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

let sim: SimCluster | undefined;
let watch: PoolWatch | undefined;

afterEach(async () => {
	watch?.stop();
	watch = undefined;
	await sim?.close();
	sim = undefined;
});

async function setup(
	simOpts: StartSimOptions = {},
): Promise<{ sim: SimCluster; kube: Kube; rec: Recorder }> {
	sim = await startSimCluster({ config: { timeScale: 0.01 }, ...simOpts });
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

async function until(what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> {
	const end = Date.now() + timeoutMs;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 10));
	}
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
		await until('synced', () => synced(rec));
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
		await until('the pod running', () => {
			const pod = rec.objects.pods.get('desk-1') as { status?: { phase?: string } } | undefined;
			return pod?.status?.phase === 'Running';
		});
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
		await until('the new data', () => {
			const cm = rec.objects.configmaps.get('corral-vdi-ctpool-desk') as
				| { data?: Record<string, string> }
				| undefined;
			return cm?.data?.spec === '{"size":2}';
		});

		// DELETED.
		await kube.core.deleteNamespacedConfigMap({ name: 'corral-vdi-ctpool-desk', namespace: NS });
		await until('the delete', () => rec.objects.configmaps.size === 0);
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
		await until('synced', () => synced(rec));
		expect([...rec.objects.configmaps.keys()].sort()).toEqual(['a', 'b']);
		expect(Object.keys(rec.byKind.at(-1)!)).toHaveLength(4);
	});

	test('survives dropped watches without losing or duplicating an object', async () => {
		const { sim, kube, rec } = await setup();
		start(kube, rec, { kinds: ['configmaps'] });
		await until('synced', () => synced(rec));
		for (let i = 1; i <= 5; i++)
			await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap(`cm-${i}`) });
		await until('five objects', () => rec.objects.configmaps.size === 5);

		// The connection is cut and new ones refused while the cluster keeps changing.
		sim.faults.refuseConnectionsFor(600);
		await until('reconnecting', () => rec.states.at(-1)?.phase === 'reconnecting');
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

		await until('synced again', () => synced(rec));
		sim.faults.dropWatches();
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('cm-7') });
		await until('cm-7', () => rec.objects.configmaps.has('cm-7'));

		const fresh = await listed(kube, 'configmaps');
		await until('the same state as a fresh list', () => {
			return JSON.stringify(rec.held('configmaps')) === JSON.stringify(fresh);
		});
		expect(Object.keys(fresh).sort()).toEqual(['cm-1', 'cm-2', 'cm-4', 'cm-5', 'cm-6', 'cm-7']);
		// Resumed from the last resourceVersion: no relist, nothing delivered twice.
		expect(rec.resets('configmaps')).toBe(1);
		expect(new Set(rec.deliveries).size).toBe(rec.deliveries.length);
	});

	test('a watch the server ends on time is resumed from the last resourceVersion', async () => {
		const { sim, kube, rec } = await setup();
		start(kube, rec, { kinds: ['configmaps'], timeoutSeconds: 1 });
		await until('synced', () => synced(rec));
		const watchesBefore = () =>
			sim.audit.requests().filter((r) => r.verb === 'watch' && r.resource === 'configmaps').length;
		await until('two watches ended by the server', () => watchesBefore() >= 3, 20_000);
		sim.store.create('configmaps', configMap('later'));
		await until('later', () => rec.objects.configmaps.has('later'));
		expect(rec.resets('configmaps')).toBe(1);
		expect(rec.states.every((s) => s.phase === 'synced')).toBe(true);
	});

	test('410 Expired relists and the reset removes what vanished meanwhile', async () => {
		const { sim, kube, rec } = await setup();
		start(kube, rec, { kinds: ['configmaps'] });
		await until('synced', () => synced(rec));
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('keep') });
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('gone') });
		await until('two objects', () => rec.objects.configmaps.size === 2);

		sim.faults.refuseConnectionsFor(300);
		sim.faults.force410Once();
		sim.store.delete('configmaps', NS, 'gone');
		sim.store.create('configmaps', configMap('new'));

		await until('the relist', () => rec.resets('configmaps') === 2);
		await until('synced', () => synced(rec));
		expect([...rec.objects.configmaps.keys()].sort()).toEqual(['keep', 'new']);
		expect(rec.held('configmaps')).toEqual(await listed(kube, 'configmaps'));
		// A delete event for "gone" never came; the reset alone removed it.
		expect(rec.changes.some((c) => c.op === 'delete')).toBe(false);
	});

	test('a watch cut off for longer than the compaction window gets a real 410 and relists', async () => {
		// A 300 ms window stands for the real 5 minutes; bookmarks keep their real minute.
		const { sim, kube, rec } = await setup({ compactionMs: 300 });
		start(kube, rec, { kinds: ['configmaps'] });
		await until('synced', () => synced(rec));
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('keep') });
		await kube.core.createNamespacedConfigMap({ namespace: NS, body: configMap('gone') });
		await until('two objects', () => rec.objects.configmaps.size === 2);
		const seen = Number(rec.objects.configmaps.get('gone')?.metadata.resourceVersion);

		// Cut off for longer than the window, while the cluster changes: no fault forces a 410.
		sim.faults.refuseConnectionsFor(1500);
		sim.store.delete('configmaps', NS, 'gone');
		sim.store.create('configmaps', configMap('new'));
		const keep = sim.store.get('configmaps', NS, 'keep')!;
		sim.store.update('configmaps', { ...keep, data: { changed: 'yes' } });

		await until('the relist', () => rec.resets('configmaps') === 2, 20_000);
		await until('synced', () => synced(rec));
		expect(sim.store.compactedRevision()).toBeGreaterThan(seen);
		expect([...rec.objects.configmaps.keys()].sort()).toEqual(['keep', 'new']);
		expect(rec.held('configmaps')).toEqual(await listed(kube, 'configmaps'));
		expect(
			(rec.objects.configmaps.get('keep') as { data?: Record<string, string> }).data?.changed,
		).toBe('yes');
		expect(rec.changes.some((c) => c.op === 'delete')).toBe(false);
		// After the relist it follows changes again.
		sim.store.create('configmaps', configMap('after'));
		await until('after', () => rec.objects.configmaps.has('after'));
	});

	test('500s on list: reconnecting with the error, then synced', async () => {
		const { sim, kube, rec } = await setup();
		sim.faults.set({ errorRate: 1 });
		start(kube, rec, { kinds: ['pods', 'configmaps'] });
		await until('two failed attempts', () =>
			rec.states.some((s) => s.phase === 'reconnecting' && s.attempts >= 2),
		);
		const s = rec.states.findLast((x) => x.phase === 'reconnecting');
		expect(s?.phase === 'reconnecting' && s.lastError).toMatch(
			/^list (pods|configmaps) in namespace corral: server error \(HTTP 50[03]/,
		);
		// The trouble started once; retries do not move "since".
		const firsts = rec.states.filter((x) => x.phase === 'reconnecting').map((x) => x.since);
		expect(new Set(firsts).size).toBe(1);
		sim.faults.set({ errorRate: 0 });
		await until('synced', () => synced(rec));
		expect(watch?.connection().phase).toBe('synced');
	});

	test('403 names the missing permission, and recovers when it is granted', async () => {
		const { sim, kube, rec } = await setup({ config: { timeScale: 0.01, deny: ['list pods'] } });
		start(kube, rec);
		await until('failed, the other kinds synced', () => {
			const k = rec.byKind.at(-1);
			return (
				rec.states.at(-1)?.phase === 'failed' &&
				k?.configmaps.phase === 'synced' &&
				k.leases.phase === 'synced' &&
				k.persistentvolumeclaims.phase === 'synced'
			);
		});
		const failed = rec.states.at(-1);
		expect(failed).toMatchObject({
			phase: 'failed',
			reason:
				'forbidden: cannot list pods in namespace corral (ask for the "list" permission on pods)',
		});
		// The other kinds are fine; only pods failed.
		expect(rec.byKind.at(-1)).toMatchObject({
			pods: { phase: 'failed' },
			configmaps: { phase: 'synced' },
			leases: { phase: 'synced' },
			persistentvolumeclaims: { phase: 'synced' },
		});
		sim.config.deny = [];
		await until('synced', () => synced(rec));
		expect(rec.resets('pods')).toBe(1);
	});

	test('the cluster unreachable at start: reconnecting, then synced when it answers', async () => {
		const { sim, kube, rec } = await setup();
		sim.faults.refuseConnectionsFor(500);
		start(kube, rec, { kinds: ['configmaps'] });
		await until('reconnecting', () => rec.states.at(-1)?.phase === 'reconnecting');
		const s = rec.states.at(-1);
		expect(s?.phase === 'reconnecting' && s.lastError).toMatch(/cluster/);
		await until('synced', () => synced(rec));
	});

	test('the watchdog restarts a silent stream', async () => {
		const { sim, kube, rec } = await setup({ bookmarkIntervalMs: 60_000 });
		start(kube, rec, { kinds: ['configmaps'], silenceMs: 300 });
		await until('synced', () => synced(rec));
		await until('a restart for silence', () =>
			rec.states.some(
				(s) => s.phase === 'reconnecting' && s.lastError.includes('no event or bookmark'),
			),
		);
		await until('synced again', () => synced(rec));
		// Nothing was lost across the restarts.
		sim.store.create('configmaps', configMap('after'));
		await until('after', () => rec.objects.configmaps.has('after'));
		expect(rec.resets('configmaps')).toBe(1);
	});

	test('stop() ends every request and timer, and the sink hears nothing more', async () => {
		const { sim, kube, rec } = await setup();
		const before = countResources();
		const w = start(kube, rec, { silenceMs: 5_000 });
		await until('synced', () => synced(rec));
		await until('four watches open', () => sim.openWatches() === 4);
		w.stop();
		await until('the watches closed on the server', () => sim.openWatches() === 0);
		await until('no timer or socket of ours left', () => {
			const after = countResources();
			return after.Timeout <= before.Timeout && after.TCPSocketWrap <= before.TCPSocketWrap;
		});
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
