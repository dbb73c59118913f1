/** The kubelet over the real store: start-up shapes, pull failures, crashes, failures, deletion. */

import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../source/sim/store-api.js';
import { waitFor } from '../support/wait.js';
import {
	clusterPerTest,
	condition,
	eventsAbout,
	isReady,
	NS,
	type PodView,
	pod,
	podManifest,
	type TestCluster,
	waitingReason,
} from './behaviour-support.js';

const startCluster = clusterPerTest();

/** Every version of a pod written from now on. */
function history(c: TestCluster, name: string): PodView[] {
	const seen: PodView[] = [];
	c.store.onChange((e: SimEvent) => {
		if (e.resource === 'pods' && e.object.metadata.name === name && e.type !== 'DELETED') {
			seen.push(e.object as unknown as PodView);
		}
	});
	return seen;
}

describe('kubelet', () => {
	it('shows ContainerCreating first, then Running and Ready', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		const seen = history(cluster, 'desk-1');
		store.create('pods', podManifest('desk-1'));
		const ready = await waitFor(
			() => {
				const p = pod(store, 'desk-1');
				return isReady(p) && p;
			},
			{ what: 'desk-1 Ready', wakeOn: store },
		);
		const creating = seen.find((p) => waitingReason(p) === 'ContainerCreating');
		expect(creating).toBeDefined();
		expect(creating?.status.phase).toBe('Pending');
		expect(creating?.spec.nodeName).toMatch(/^node-/);
		expect(condition(creating, 'Initialized')?.status).toBe('True');
		expect(condition(creating, 'PodScheduled')?.status).toBe('True');
		expect(condition(creating, 'Ready')).toMatchObject({
			status: 'False',
			reason: 'ContainersNotReady',
		});
		expect(condition(creating, 'ContainersReady')).toMatchObject({
			status: 'False',
			reason: 'ContainersNotReady',
		});
		expect(ready.status.podIP).toMatch(/^10\.244\./);
		expect(ready.status.hostIP).toMatch(/^10\.0\./);
		const cs = ready.status.containerStatuses?.[0];
		expect(cs?.ready).toBe(true);
		expect(cs?.state?.running?.startedAt).toMatch(/Z$/);
		for (const c of ready.status.conditions ?? []) expect(c.status).toBe('True');
		const events = eventsAbout(store, 'desk-1');
		const started = events.find((e) => e.reason === 'Started');
		expect(started).toMatchObject({
			type: 'Normal',
			message: 'Started container ct',
			source: { component: 'kubelet', host: ready.spec.nodeName },
		});
		expect(events.find((e) => e.reason === 'Pulling')?.message).toBe(
			'Pulling image "ghcr.io/example/desktop:1"',
		);
	});

	it('fails to pull an unpullable image: ErrImagePull, then ImagePullBackOff, with events', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		const seen = history(cluster, 'bad');
		store.create('pods', podManifest('bad', { image: 'ghcr.io/example/desktop:broken' }));
		const backoff = await waitFor(
			() => {
				const p = pod(store, 'bad');
				return waitingReason(p) === 'ImagePullBackOff' && p;
			},
			{ what: 'ImagePullBackOff', wakeOn: store },
		);
		const pullErr = seen.find((p) => waitingReason(p) === 'ErrImagePull');
		expect(pullErr?.status.containerStatuses?.[0]?.state?.waiting?.message).toBe(
			'rpc error: code = NotFound desc = failed to pull and unpack image "ghcr.io/example/desktop:broken": failed to resolve reference "ghcr.io/example/desktop:broken": ghcr.io/example/desktop:broken: not found',
		);
		expect(backoff.status.phase).toBe('Pending');
		expect(backoff.status.containerStatuses?.[0]?.state?.waiting?.message).toBe(
			'Back-off pulling image "ghcr.io/example/desktop:broken"',
		);
		expect(condition(backoff, 'Ready')?.status).toBe('False');
		const events = eventsAbout(store, 'bad');
		expect(events.map((e) => e.reason)).toEqual(
			expect.arrayContaining(['Pulling', 'Failed', 'BackOff']),
		);
		expect(events.find((e) => e.message.startsWith('Failed to pull image'))?.type).toBe('Warning');
		expect(events.find((e) => e.reason === 'BackOff')?.message).toBe(
			'Back-off pulling image "ghcr.io/example/desktop:broken"',
		);
	});

	it('treats prefix patterns as unpullable too', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		store.create('pods', podManifest('nowhere', { image: 'registry.invalid/desk:1' }));
		await waitFor(
			() => {
				const r = waitingReason(pod(store, 'nowhere'));
				return r === 'ErrImagePull' || r === 'ImagePullBackOff';
			},
			{ what: 'ErrImagePull', wakeOn: store },
		);
	});

	it('retries a failing pull with back-off, counting the repeated events', async () => {
		// timeScale 0.001: the 10 s back-off takes 10 ms.
		const cluster = startCluster({ timeScale: 0.001 });
		const { store } = cluster;
		store.create('pods', podManifest('bad', { image: 'x:broken' }));
		const again = await waitFor(
			() =>
				eventsAbout(store, 'bad').find((e) => e.message === 'Error: ErrImagePull' && e.count >= 2),
			{ what: 'a second pull failure', wakeOn: store },
		);
		expect(again.type).toBe('Warning');
	});

	it('crashes a running container into CrashLoopBackOff on request', async () => {
		const cluster = startCluster();
		const { store, controllers } = cluster;
		store.create('pods', podManifest('desk-1'));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
		const seen = history(cluster, 'desk-1');
		controllers.crash(NS, 'desk-1');
		const looping = await waitFor(
			() => {
				const p = pod(store, 'desk-1');
				return waitingReason(p) === 'CrashLoopBackOff' && p;
			},
			{ what: 'CrashLoopBackOff', wakeOn: store },
		);
		const crashed = seen.find((p) => p.status.containerStatuses?.[0]?.state?.terminated);
		expect(crashed?.status.containerStatuses?.[0]?.state?.terminated).toMatchObject({
			exitCode: 1,
			reason: 'Error',
		});
		const cs = looping.status.containerStatuses?.[0];
		expect(cs?.restartCount).toBeGreaterThanOrEqual(1);
		expect(cs?.ready).toBe(false);
		expect(cs?.lastState?.terminated?.reason).toBe('Error');
		expect(cs?.state?.waiting?.message).toMatch(
			/^back-off 10s restarting failed container=ct pod=desk-1_corral\(/,
		);
		expect(looping.status.phase).toBe('Running');
		expect(condition(looping, 'Ready')?.status).toBe('False');
		const backOff = eventsAbout(store, 'desk-1').find((e) => e.reason === 'BackOff');
		expect(backOff?.type).toBe('Warning');
		expect(backOff?.message).toMatch(
			/^Back-off restarting failed container ct in pod desk-1_corral\(/,
		);
	});

	it('crashes the container of a crashing image soon after each start: CrashLoopBackOff by itself', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		const seen = history(cluster, 'desk-1');
		store.create('pods', podManifest('desk-1', { image: 'ghcr.io/example/desktop:crashing' }));
		const looping = await waitFor(
			() => {
				const p = pod(store, 'desk-1');
				return waitingReason(p) === 'CrashLoopBackOff' && p;
			},
			{ what: 'CrashLoopBackOff', wakeOn: store },
		);
		// it ran first (the image was pulled and started), then exited with status 1
		expect(seen.some((p) => p.status.containerStatuses?.[0]?.state?.running)).toBe(true);
		const cs = looping.status.containerStatuses?.[0];
		expect(cs?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
		expect(cs?.state?.waiting?.message).toMatch(/^back-off 10s restarting failed container=ct /);
	});

	it('fails a pod for good on request', async () => {
		const cluster = startCluster();
		const { store, controllers } = cluster;
		store.create('pods', podManifest('desk-1'));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
		controllers.fail(NS, 'desk-1');
		const p = pod(store, 'desk-1');
		expect(p?.status.phase).toBe('Failed');
		expect(p?.status.containerStatuses?.[0]?.state?.terminated).toMatchObject({
			exitCode: 1,
			reason: 'Error',
		});
		expect(condition(p, 'Ready')).toMatchObject({ status: 'False', reason: 'PodFailed' });
	});

	it('keeps a deleted pod Terminating until its grace period ends, then the kubelet removes it', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		const writers: string[] = [];
		store.onWrite((w) => {
			if (w.resource === 'pods' && w.name === 'desk-1' && w.verb === 'delete') {
				writers.push(w.who ?? '');
			}
		});
		store.create('pods', podManifest('desk-1'));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
		store.delete('pods', NS, 'desk-1', { gracePeriodSeconds: 30, who: 'test' });
		const terminating = pod(store, 'desk-1');
		expect(terminating?.metadata.deletionTimestamp).toBeDefined();
		expect(terminating?.metadata.deletionGracePeriodSeconds).toBe(30);
		await waitFor(() => !pod(store, 'desk-1'), { what: 'desk-1 gone', wakeOn: store });
		expect(writers).toEqual(['test', 'system:kubelet']);
		expect(eventsAbout(store, 'desk-1').find((e) => e.reason === 'Killing')?.message).toBe(
			'Stopping container ct',
		);
	});

	it('does not delete a new pod that took the name of a terminating one', async () => {
		const cluster = startCluster({ timeScale: 0.01 });
		const { store } = cluster;
		store.create('pods', podManifest('desk-1'));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
		store.delete('pods', NS, 'desk-1', { gracePeriodSeconds: 10 });
		store.delete('pods', NS, 'desk-1', { gracePeriodSeconds: 0 });
		expect(pod(store, 'desk-1')).toBeUndefined();
		const fresh = store.create('pods', podManifest('desk-1'));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'new desk-1 Ready', wakeOn: store });
		// Past the first pod's grace period (10 s × 0.01), the new pod is still there.
		await new Promise((r) => setTimeout(r, 300));
		expect(pod(store, 'desk-1')?.metadata.uid).toBe(fresh.metadata.uid);
	});

	it('stop() clears every timer', async () => {
		const cluster = startCluster({ containerStartMs: 1_000_000 });
		const { store, controllers } = cluster;
		store.create('pods', podManifest('desk-1'));
		await waitFor(() => waitingReason(pod(store, 'desk-1')) === 'ContainerCreating', {
			what: 'desk-1 creating',
			wakeOn: store,
		});
		expect(controllers.backlog().timers).toBeGreaterThan(0);
		controllers.stop();
		expect(controllers.backlog().timers).toBe(0);
	});
});
