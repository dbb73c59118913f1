/** The scheduler over the real store: binding, Unschedulable messages, retries when room frees. */

import { describe, expect, it } from 'vitest';
import { fitErrorMessage } from '../../source/sim/controllers/index.js';
import { waitFor } from '../support/wait.js';
import {
	clusterPerTest,
	condition,
	eventsAbout,
	isReady,
	NS,
	pod,
	podManifest,
	pvcManifest,
} from './behaviour-support.js';

const startCluster = clusterPerTest();

function nodes(...spec: Array<[string, string, string]>) {
	return spec.map(([name, cpu, memory]) => ({ name, cpu, memory }));
}

describe('fitErrorMessage', () => {
	it('words insufficient memory like the real scheduler', () => {
		expect(
			fitErrorMessage([['Insufficient memory'], ['Insufficient memory'], ['Insufficient memory']]),
		).toBe(
			'0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
		);
	});

	it('counts each reason over the nodes and sorts the histogram', () => {
		expect(
			fitErrorMessage([
				['Insufficient cpu'],
				['Insufficient memory'],
				['Insufficient cpu', 'Insufficient memory'],
				['node(s) were unschedulable'],
			]),
		).toBe(
			'0/4 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu, 2 Insufficient memory. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.',
		);
	});

	it('puts a pre-filter failure (a missing claim) before preemption', () => {
		expect(fitErrorMessage([[], [], []], 'persistentvolumeclaim "x" not found')).toBe(
			'0/3 nodes are available: persistentvolumeclaim "x" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
		);
	});

	it('has the real message for a cluster without nodes', () => {
		expect(fitErrorMessage([])).toBe('no nodes available to schedule pods');
	});
});

describe('scheduler', () => {
	it('binds a pod that fits and the kubelet makes it Ready, with the usual events', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		store.create('pods', podManifest('desk-1'));
		const ready = await waitFor(
			() => {
				const p = pod(store, 'desk-1');
				return isReady(p) && p;
			},
			{ what: 'desk-1 Ready', wakeOn: store },
		);
		expect(ready.spec.nodeName).toMatch(/^node-[abc]$/);
		expect(condition(ready, 'PodScheduled')?.status).toBe('True');
		const reasons = eventsAbout(store, 'desk-1').map((e) => e.reason);
		expect(reasons).toEqual(
			expect.arrayContaining(['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']),
		);
		const scheduled = eventsAbout(store, 'desk-1').find((e) => e.reason === 'Scheduled');
		expect(scheduled?.message).toBe(`Successfully assigned ${NS}/desk-1 to ${ready.spec.nodeName}`);
		expect(scheduled?.source.component).toBe('default-scheduler');
		expect(cluster.controllers.errors()).toEqual([]);
	});

	it('spreads pods over the nodes', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		for (const n of [1, 2, 3]) store.create('pods', podManifest(`desk-${n}`));
		const placed = await waitFor(
			() => {
				const names = [1, 2, 3].map((n) => pod(store, `desk-${n}`)?.spec.nodeName);
				return names.every(Boolean) && names;
			},
			{ what: 'three pods bound', wakeOn: store },
		);
		expect(new Set(placed).size).toBe(3);
	});

	it('marks a pod that fits nowhere Unschedulable with the real message and a FailedScheduling event', async () => {
		const cluster = startCluster({
			nodes: nodes(['node-a', '4', '4Gi'], ['node-b', '4', '4Gi'], ['node-c', '4', '4Gi']),
		});
		const { store } = cluster;
		store.create('pods', podManifest('big', { memory: '8Gi' }));
		const message =
			'0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
		const p = await waitFor(
			() => {
				const p = pod(store, 'big');
				return condition(p, 'PodScheduled')?.reason === 'Unschedulable' && p;
			},
			{ what: 'big unschedulable', wakeOn: store },
		);
		expect(p.status.phase).toBe('Pending');
		expect(p.spec.nodeName).toBeUndefined();
		expect(condition(p, 'PodScheduled')).toMatchObject({ status: 'False', message });
		const ev = await waitFor(
			() => eventsAbout(store, 'big').find((e) => e.reason === 'FailedScheduling'),
			{ what: 'FailedScheduling event', wakeOn: store },
		);
		expect(ev).toMatchObject({
			type: 'Warning',
			message,
			source: { component: 'default-scheduler' },
		});
	});

	it('counts cpu and memory shortfalls per node', async () => {
		const cluster = startCluster({
			nodes: nodes(['node-a', '1', '8Gi'], ['node-b', '4', '1Gi'], ['node-c', '1', '1Gi']),
		});
		const { store } = cluster;
		store.create('pods', podManifest('wide', { cpu: '2', memory: '2Gi' }));
		const p = await waitFor(
			() => {
				const p = pod(store, 'wide');
				return condition(p, 'PodScheduled')?.reason === 'Unschedulable' && p;
			},
			{ what: 'wide unschedulable', wakeOn: store },
		);
		expect(condition(p, 'PodScheduled')?.message).toBe(
			'0/3 nodes are available: 2 Insufficient cpu, 2 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
		);
	});

	it('schedules a waiting pod once a pod is deleted and its room frees', async () => {
		const cluster = startCluster({
			nodes: nodes(['node-a', '2', '4Gi'], ['node-b', '2', '4Gi']),
		});
		const { store } = cluster;
		store.create('pods', podManifest('a', { memory: '3Gi' }));
		store.create('pods', podManifest('b', { memory: '3Gi' }));
		await waitFor(() => isReady(pod(store, 'a')) && isReady(pod(store, 'b')), {
			what: 'a and b Ready',
			wakeOn: store,
		});
		store.create('pods', podManifest('c', { memory: '3Gi' }));
		await waitFor(() => condition(pod(store, 'c'), 'PodScheduled')?.reason === 'Unschedulable', {
			what: 'c unschedulable',
			wakeOn: store,
		});
		const nodeOfA = pod(store, 'a')?.spec.nodeName;
		store.delete('pods', NS, 'a', { gracePeriodSeconds: 1 });
		// Still there while terminating: its room is not free yet.
		expect(pod(store, 'a')?.metadata.deletionTimestamp).toBeDefined();
		const c = await waitFor(
			() => {
				const p = pod(store, 'c');
				return isReady(p) && p;
			},
			{ what: 'c Ready', wakeOn: store },
		);
		expect(pod(store, 'a')).toBeUndefined();
		expect(c.spec.nodeName).toBe(nodeOfA);
		expect(condition(c, 'PodScheduled')?.status).toBe('True');
	});

	it('schedules a waiting pod once a failed pod stops counting', async () => {
		const cluster = startCluster({ nodes: nodes(['node-a', '2', '4Gi']) });
		const { store, controllers } = cluster;
		store.create('pods', podManifest('a', { memory: '3Gi' }));
		await waitFor(() => isReady(pod(store, 'a')), { what: 'a Ready', wakeOn: store });
		store.create('pods', podManifest('b', { memory: '3Gi' }));
		await waitFor(() => condition(pod(store, 'b'), 'PodScheduled')?.reason === 'Unschedulable', {
			what: 'b unschedulable',
			wakeOn: store,
		});
		controllers.fail(NS, 'a');
		await waitFor(() => isReady(pod(store, 'b')), { what: 'b Ready', wakeOn: store });
		expect(pod(store, 'a')?.status.phase).toBe('Failed');
	});

	it('schedules a waiting pod once a node is added', async () => {
		const cluster = startCluster({ nodes: nodes(['node-a', '2', '2Gi']) });
		const { store } = cluster;
		store.create('pods', podManifest('p', { memory: '4Gi' }));
		await waitFor(() => condition(pod(store, 'p'), 'PodScheduled')?.reason === 'Unschedulable', {
			what: 'p unschedulable',
			wakeOn: store,
		});
		expect(condition(pod(store, 'p'), 'PodScheduled')?.message).toContain(
			'0/1 nodes are available: 1 Insufficient memory.',
		);
		store.create('nodes', {
			apiVersion: 'v1',
			kind: 'Node',
			metadata: { name: 'node-big' },
			status: { allocatable: { cpu: '8', memory: '32Gi' } },
		});
		const p = await waitFor(
			() => {
				const p = pod(store, 'p');
				return isReady(p) && p;
			},
			{ what: 'p Ready', wakeOn: store },
		);
		expect(p.spec.nodeName).toBe('node-big');
	});

	it('registers the configured nodes as Node objects', () => {
		const cluster = startCluster();
		const names = cluster.store.list('nodes').map((n) => n.metadata.name);
		expect(names).toEqual(['node-a', 'node-b', 'node-c']);
		const node = cluster.store.get('nodes', undefined, 'node-a') as unknown as {
			status: { allocatable: { cpu: string; memory: string } };
		};
		expect(node.status.allocatable).toMatchObject({ cpu: '8', memory: '32Gi' });
	});

	it('keeps a pod whose claim does not exist Pending, then runs it once the claim is bound', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		store.create('pods', podManifest('desk-1', { claim: 'desk-1-data' }));
		const p = await waitFor(
			() => {
				const p = pod(store, 'desk-1');
				return condition(p, 'PodScheduled')?.reason === 'Unschedulable' && p;
			},
			{ what: 'desk-1 unschedulable', wakeOn: store },
		);
		expect(condition(p, 'PodScheduled')?.message).toBe(
			'0/3 nodes are available: persistentvolumeclaim "desk-1-data" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
		);
		expect(p.status.phase).toBe('Pending');
		store.create('persistentvolumeclaims', pvcManifest('desk-1-data'));
		await waitFor(() => isReady(pod(store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: store });
	});

	it('waits for an Immediate claim that is still provisioning', async () => {
		const cluster = startCluster();
		const { store } = cluster;
		store.create('persistentvolumeclaims', pvcManifest('slow-data', 'slow'));
		store.create('pods', podManifest('desk-2', { claim: 'slow-data' }));
		const p = await waitFor(
			() => {
				const p = pod(store, 'desk-2');
				return condition(p, 'PodScheduled')?.reason === 'Unschedulable' && p;
			},
			{ what: 'desk-2 unschedulable', wakeOn: store },
		);
		expect(condition(p, 'PodScheduled')?.message).toBe(
			'0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
		);
		await waitFor(() => isReady(pod(store, 'desk-2')), { what: 'desk-2 Ready', wakeOn: store });
		expect(cluster.controllers.errors()).toEqual([]);
	});
});
