/**
 * The controllers end to end through the simulated cluster's API server, as ctpool and
 * kubectl see them: client-node reads and writes, kubectl get/describe/delete.
 */

import { join } from 'node:path';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeKubectl, kubectl as runKubectl } from '../support/kubectl.js';
import { kubeConfigFor, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';
import { NS, podManifest, pvcManifest } from './behaviour-support.js';

const sim = withSim({
	config: {
		nodes: [
			{ name: 'node-a', cpu: '2', memory: '4Gi' },
			{ name: 'node-b', cpu: '2', memory: '4Gi' },
		],
	},
});

let core: CoreV1Api;
beforeAll(async () => {
	core = (await kubeConfigFor(sim)).makeApiClient(CoreV1Api);
});

function kubectl(...args: string[]) {
	return runKubectl(['-n', NS, ...args], {
		kubeconfig: sim.kubeconfigPath,
		cacheDir: join(sim.sim.dir, 'kube-cache'),
	});
}

async function create(name: string, o: Parameters<typeof podManifest>[1] = {}): Promise<void> {
	await core.createNamespacedPod({ namespace: NS, body: podManifest(name, o) as V1Pod });
}

function read(name: string): Promise<V1Pod> {
	return core.readNamespacedPod({ namespace: NS, name });
}

async function gone(name: string): Promise<boolean> {
	try {
		await read(name);
		return false;
	} catch (err) {
		return (err as { code?: number }).code === 404;
	}
}

function running(name: string): Promise<V1Pod> {
	return waitFor(
		async () => {
			const p = await read(name);
			const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
			return p.status?.phase === 'Running' && ready ? p : undefined;
		},
		{ what: `${name} Running and Ready` },
	);
}

function scheduledCondition(p: V1Pod) {
	return p.status?.conditions?.find((c) => c.type === 'PodScheduled');
}

describe('scheduling through the API', () => {
	it('runs pods that fit, keeps one that does not Pending, and runs it once room frees', async () => {
		await create('fill-a', { memory: '3Gi' });
		await create('fill-b', { memory: '3Gi' });
		const a = await running('fill-a');
		const b = await running('fill-b');
		expect(new Set([a.spec?.nodeName, b.spec?.nodeName])).toEqual(new Set(['node-a', 'node-b']));
		expect(a.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
		await create('waiting', { memory: '3Gi' });
		const w = await waitFor(
			async () => {
				const p = await read('waiting');
				return scheduledCondition(p)?.reason === 'Unschedulable' ? p : undefined;
			},
			{ what: 'waiting Unschedulable' },
		);
		expect(w.status?.phase).toBe('Pending');
		expect(scheduledCondition(w)?.message).toBe(
			'0/2 nodes are available: 2 Insufficient memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
		);
		await core.deleteNamespacedPod({ namespace: NS, name: 'fill-a' });
		const later = await running('waiting');
		expect(later.spec?.nodeName).toBe(a.spec?.nodeName);
		expect(await gone('fill-a')).toBe(true);
		await core.deleteNamespacedPod({ namespace: NS, name: 'fill-b', gracePeriodSeconds: 0 });
		await core.deleteNamespacedPod({ namespace: NS, name: 'waiting', gracePeriodSeconds: 0 });
	});

	it('shows a crash and a failure in the pod status', async () => {
		await create('crashy', { cpu: '100m', memory: '64Mi' });
		await create('doomed', { cpu: '100m', memory: '64Mi' });
		await running('crashy');
		await running('doomed');
		sim.cluster.controllers.crash(NS, 'crashy');
		sim.cluster.controllers.fail(NS, 'doomed');
		const crashed = await waitFor(
			async () => {
				const p = await read('crashy');
				return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff'
					? p
					: undefined;
			},
			{ what: 'crashy in CrashLoopBackOff' },
		);
		expect(crashed.status?.containerStatuses?.[0]?.restartCount).toBeGreaterThanOrEqual(1);
		const failed = await read('doomed');
		expect(failed.status?.phase).toBe('Failed');
		expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
	});
});

describe('volumes through the API', () => {
	it('binds a WaitForFirstConsumer claim for its pod, and keeps it Terminating until the pod is gone', async () => {
		await core.createNamespacedPersistentVolumeClaim({
			namespace: NS,
			body: pvcManifest('vol-data', 'wait') as never,
		});
		const pending = await core.readNamespacedPersistentVolumeClaim({
			namespace: NS,
			name: 'vol-data',
		});
		expect(pending.status?.phase).toBe('Pending');
		await create('vol-user', { cpu: '100m', memory: '64Mi', claim: 'vol-data' });
		const p = await running('vol-user');
		const bound = await core.readNamespacedPersistentVolumeClaim({
			namespace: NS,
			name: 'vol-data',
		});
		expect(bound.status?.phase).toBe('Bound');
		expect(bound.metadata?.annotations?.['volume.kubernetes.io/selected-node']).toBe(
			p.spec?.nodeName,
		);
		expect(bound.spec?.volumeName).toBe(`pvc-${bound.metadata?.uid}`);
		await core.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'vol-data' });
		const terminating = await core.readNamespacedPersistentVolumeClaim({
			namespace: NS,
			name: 'vol-data',
		});
		expect(terminating.metadata?.deletionTimestamp).toBeDefined();
		expect(terminating.metadata?.finalizers).toContain('kubernetes.io/pvc-protection');
		await core.deleteNamespacedPod({ namespace: NS, name: 'vol-user' });
		await waitFor(
			async () => {
				try {
					await core.readNamespacedPersistentVolumeClaim({ namespace: NS, name: 'vol-data' });
					return false;
				} catch (err) {
					return (err as { code?: number }).code === 404;
				}
			},
			{ what: 'vol-data gone' },
		);
		expect(await gone('vol-user')).toBe(true);
	});
});

describeKubectl('kubectl sees what the controllers do', () => {
	it('lists and describes the scheduler and kubelet events', async () => {
		await create('huge', { memory: '64Gi' });
		await create('broken', {
			cpu: '100m',
			memory: '64Mi',
			image: 'ghcr.io/example/desktop:broken',
		});
		await waitFor(
			async () => {
				const p = await read('broken');
				return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff';
			},
			{ what: 'broken in ImagePullBackOff' },
		);
		const events = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=huge');
		expect(events.code).toBe(0);
		expect(events.stdout).toMatch(
			/Warning +FailedScheduling +pod\/huge +0\/2 nodes are available: 2 Insufficient memory\./,
		);
		const described = await kubectl('describe', 'pod', 'huge');
		expect(described.stdout).toMatch(/PodScheduled +False/);
		expect(described.stdout).toMatch(
			/Warning +FailedScheduling +.* default-scheduler +0\/2 nodes are available/,
		);
		const pods = await kubectl('get', 'pod', 'broken', 'huge');
		expect(pods.stdout).toMatch(/^broken +0\/1 +(ImagePullBackOff|ErrImagePull) +0 /m);
		expect(pods.stdout).toMatch(/^huge +0\/1 +Pending +0 /m);
		const brokenEvents = await kubectl('describe', 'pod', 'broken');
		expect(brokenEvents.stdout).toMatch(
			/Normal +Pulling .* kubelet +Pulling image "ghcr.io\/example\/desktop:broken"/,
		);
		expect(brokenEvents.stdout).toMatch(
			/Normal +BackOff .* kubelet +Back-off pulling image "ghcr.io\/example\/desktop:broken"/,
		);
	});

	it('kubectl delete returns once the kubelet has removed the pod', async () => {
		await create('short-lived', { cpu: '100m', memory: '64Mi' });
		await running('short-lived');
		const r = await kubectl('delete', 'pod', 'short-lived', '--grace-period=2');
		expect(r.stdout).toBe('pod "short-lived" deleted\n');
		expect(await gone('short-lived')).toBe(true);
	});
});
