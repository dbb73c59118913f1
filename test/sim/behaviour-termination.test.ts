/**
 * Pod termination as on a real node: the default 30 s grace period, SIGTERM ignored by a
 * PID 1 without a handler (`sleep infinity`, a shell, Corral's bootstrap) until SIGKILL,
 * an image's own entrypoint gone within about a second, an explicit grace honoured, and the
 * PVC held by pvc-protection while its pod terminates.
 */

import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../source/sim/store-api.js';
import { waitFor } from '../support/wait.js';
import {
	BOOTSTRAP,
	clusterPerTest,
	isReady,
	NS,
	type PodView,
	pod,
	podManifest,
	pvcManifest,
	type TestCluster,
} from './behaviour-support.js';

const startCluster = clusterPerTest();

/** Deletes a Ready pod and resolves with how long it stayed (in the cluster's scaled seconds). */
async function timeToGone(
	c: TestCluster,
	name: string,
	grace?: number,
): Promise<{ seconds: number; last: PodView }> {
	const { store } = c;
	let last: PodView | undefined;
	const off = store.onChange((e: SimEvent) => {
		if (e.resource === 'pods' && e.object.metadata.name === name && e.type !== 'DELETED') {
			last = e.object as unknown as PodView;
		}
	});
	const started = Date.now();
	const opts = grace === undefined ? { who: 'test' } : { who: 'test', gracePeriodSeconds: grace };
	store.delete('pods', NS, name, opts);
	await waitFor(() => !pod(store, name), {
		what: `${name} gone`,
		wakeOn: store,
		timeoutMs: 60_000,
	});
	off();
	return { seconds: (Date.now() - started) / 1000 / c.config.timeScale, last: last! };
}

function terminated(p: PodView) {
	return p.status.containerStatuses?.[0]?.state?.terminated;
}

describe('pod termination', () => {
	it('keeps a sleep infinity pod Terminating for the default 30 s, its PVC with it, then kills it', async () => {
		const cluster = startCluster({ timeScale: 0.01 });
		const { store } = cluster;
		store.create('persistentvolumeclaims', pvcManifest('desk-1-data'));
		store.create('pods', podManifest('desk-1', { claim: 'desk-1-data' }));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
		expect(
			(
				store.get('pods', NS, 'desk-1')?.spec as
					| { terminationGracePeriodSeconds?: number }
					| undefined
			)?.terminationGracePeriodSeconds,
		).toBe(30);
		const order: string[] = [];
		store.onChange((e) => {
			if (e.type === 'DELETED') order.push(`${e.resource}/${e.object.metadata.name}`);
		});
		store.delete('persistentvolumeclaims', NS, 'desk-1-data', { who: 'test' });
		const { seconds, last } = await timeToGone(cluster, 'desk-1');
		// Timers never fire early: the whole grace period passed before the kill.
		expect(seconds).toBeGreaterThanOrEqual(30);
		expect(last.metadata.deletionGracePeriodSeconds).toBe(30);
		expect(terminated(last)).toMatchObject({ exitCode: 137, reason: 'Error' });
		expect(last.status.phase).toBe('Failed');
		await waitFor(() => !store.get('persistentvolumeclaims', NS, 'desk-1-data'), {
			what: 'PVC gone',
			wakeOn: store,
		});
		expect(order).toEqual(['pods/desk-1', 'persistentvolumeclaims/desk-1-data']);
		// The pod's container logs went with it.
		expect(cluster.controllers.logs.size()).toBe(0);
	});

	it("lets a container running the image's own entrypoint exit within about a second", async () => {
		// A fifth of real pace: its half second is 0.1 s, the 30 s grace would be 6 s.
		const cluster = startCluster({ timeScale: 0.2 });
		const { store } = cluster;
		store.create('pods', podManifest('own', { command: null }));
		await waitFor(() => isReady(pod(store, 'own')), { what: 'own Ready', wakeOn: store });
		const { seconds, last } = await timeToGone(cluster, 'own');
		// It exited on SIGTERM (exit 0), not at the end of the 30 s grace (SIGKILL, 137).
		expect(terminated(last)).toMatchObject({ exitCode: 0, reason: 'Completed' });
		expect(last.status.phase).toBe('Succeeded');
		// About a second (with room for a loaded machine), far from the 30 s grace period.
		expect(seconds).toBeLessThan(5);
	});

	it("keeps Corral's privileged bootstrap and a plain shell until SIGKILL", async () => {
		const cluster = startCluster({ timeScale: 0.01 });
		const { store } = cluster;
		store.create('persistentvolumeclaims', pvcManifest('boot-data'));
		store.create(
			'pods',
			podManifest('boot', {
				command: BOOTSTRAP,
				privileged: true,
				claim: 'boot-data',
				mountPath: '/corral-rootfs',
			}),
		);
		store.create('pods', podManifest('shell', { command: ['sh'] }));
		await waitFor(() => isReady(pod(store, 'boot')) && isReady(pod(store, 'shell')), {
			what: 'both Ready',
			wakeOn: store,
		});
		const [boot, shell] = await Promise.all([
			timeToGone(cluster, 'boot', 3),
			timeToGone(cluster, 'shell', 3),
		]);
		for (const r of [boot, shell]) {
			expect(r.seconds).toBeGreaterThanOrEqual(3);
			expect(terminated(r.last)?.exitCode).toBe(137);
		}
	});

	it('honours an explicit grace period, and a shorter one given later', async () => {
		const cluster = startCluster({ timeScale: 0.01 });
		const { store } = cluster;
		store.create('pods', podManifest('five'));
		store.create('pods', podManifest('now'));
		await waitFor(() => isReady(pod(store, 'five')) && isReady(pod(store, 'now')), {
			what: 'Ready',
			wakeOn: store,
		});
		const five = await timeToGone(cluster, 'five', 5);
		expect(five.seconds).toBeGreaterThanOrEqual(5);
		expect(five.last.metadata.deletionGracePeriodSeconds).toBe(5);
		store.delete('pods', NS, 'now', { gracePeriodSeconds: 300 });
		expect(pod(store, 'now')?.metadata.deletionGracePeriodSeconds).toBe(300);
		const shorter = await timeToGone(cluster, 'now', 2);
		expect(shorter.last.metadata.deletionGracePeriodSeconds).toBe(2);
		expect(shorter.seconds).toBeGreaterThanOrEqual(2);
		store.create('pods', podManifest('zero'));
		await waitFor(() => isReady(pod(store, 'zero')), { what: 'zero Ready', wakeOn: store });
		store.delete('pods', NS, 'zero', { gracePeriodSeconds: 0 });
		expect(pod(store, 'zero')).toBeUndefined();
	});

	it('removes a pod whose container never started without waiting for the grace period', async () => {
		const cluster = startCluster({ timeScale: 0.1, containerStartMs: 1_000_000 });
		const { store } = cluster;
		store.create('pods', podManifest('creating'));
		await waitFor(() => pod(store, 'creating')?.spec.nodeName, {
			what: 'scheduled',
			wakeOn: store,
		});
		const { seconds } = await timeToGone(cluster, 'creating');
		expect(seconds).toBeLessThan(30);
	});
});
