/** The volume provisioner and PVC protection over the real store. */

import { describe, expect, it } from 'vitest';
import { ControllerErrors } from '../../source/sim/controllers/controller-errors.js';
import { EventRecorder } from '../../source/sim/controllers/events.js';
import type { SimObject } from '../../source/sim/store-api.js';
import { waitFor } from '../support/wait.js';
import {
	clusterPerTest,
	eventsAbout,
	isReady,
	NS,
	pod,
	podManifest,
	pvcManifest,
	type TestCluster,
} from './behaviour-support.js';

const startCluster = clusterPerTest();

interface PvcView {
	metadata: SimObject['metadata'];
	spec: { storageClassName?: string; volumeName?: string };
	status: { phase?: string; capacity?: { storage?: string }; accessModes?: string[] };
}

function pvc(c: TestCluster, name: string): PvcView | undefined {
	return c.store.get('persistentvolumeclaims', NS, name) as unknown as PvcView | undefined;
}

describe('volume provisioner', () => {
	it('binds an Immediate claim after the provisioning delay', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('data', 'standard'));
		expect(pvc(c, 'data')?.status.phase).toBe('Pending');
		const bound = await waitFor(
			() => {
				const p = pvc(c, 'data');
				return p?.status.phase === 'Bound' && p;
			},
			{ what: 'data Bound', wakeOn: c.store },
		);
		expect(bound.spec.volumeName).toBe(`pvc-${bound.metadata.uid}`);
		expect(bound.status.capacity?.storage).toBe('5Gi');
		expect(bound.status.accessModes).toEqual(['ReadWriteOnce']);
		const reasons = eventsAbout(c.store, 'data').map((e) => e.reason);
		expect(reasons).toEqual(expect.arrayContaining(['Provisioning', 'ProvisioningSucceeded']));
	});

	it('gives a claim without a class the default class', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('data'));
		const bound = await waitFor(
			() => {
				const p = pvc(c, 'data');
				return p?.status.phase === 'Bound' && p;
			},
			{ what: 'data Bound', wakeOn: c.store },
		);
		expect(bound.spec.storageClassName).toBe('standard');
	});

	it('leaves a claim of an unknown class Pending with a ProvisioningFailed event', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('lost-class', 'gold'));
		c.store.create('persistentvolumeclaims', pvcManifest('fine', 'standard'));
		const ev = await waitFor(
			() => eventsAbout(c.store, 'lost-class').find((e) => e.reason === 'ProvisioningFailed'),
			{ what: 'ProvisioningFailed', wakeOn: c.store },
		);
		expect(ev).toMatchObject({
			type: 'Warning',
			message: 'storageclass.storage.k8s.io "gold" not found',
		});
		await waitFor(() => pvc(c, 'fine')?.status.phase === 'Bound', {
			what: 'fine Bound',
			wakeOn: c.store,
		});
		expect(pvc(c, 'lost-class')?.status.phase).toBe('Pending');
	});

	it('binds a WaitForFirstConsumer claim only once a pod using it is scheduled', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('wait-data', 'wait'));
		c.store.create('persistentvolumeclaims', pvcManifest('other', 'standard'));
		const ev = await waitFor(
			() => eventsAbout(c.store, 'wait-data').find((e) => e.reason === 'WaitForFirstConsumer'),
			{ what: 'WaitForFirstConsumer event', wakeOn: c.store },
		);
		expect(ev.message).toBe('waiting for first consumer to be created before binding');
		await waitFor(() => pvc(c, 'other')?.status.phase === 'Bound', {
			what: 'other Bound',
			wakeOn: c.store,
		});
		expect(pvc(c, 'wait-data')?.status.phase).toBe('Pending');
		c.store.create('pods', podManifest('desk-1', { claim: 'wait-data' }));
		const ready = await waitFor(
			() => {
				const p = pod(c.store, 'desk-1');
				return isReady(p) && p;
			},
			{ what: 'desk-1 Ready', wakeOn: c.store },
		);
		const bound = pvc(c, 'wait-data');
		expect(bound?.status.phase).toBe('Bound');
		expect(bound?.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(
			ready.spec.nodeName,
		);
		expect(c.controllers.errors()).toEqual([]);
	});

	it('keeps a claim Terminating while a running pod uses it, and removes it once the pod is gone', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('desk-1-data'));
		c.store.create('pods', podManifest('desk-1', { claim: 'desk-1-data' }));
		await waitFor(() => isReady(pod(c.store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: c.store });
		c.store.delete('persistentvolumeclaims', NS, 'desk-1-data');
		const terminating = pvc(c, 'desk-1-data');
		expect(terminating?.metadata.deletionTimestamp).toBeDefined();
		expect(terminating?.metadata.finalizers).toContain('kubernetes.io/pvc-protection');
		// Another claim going through a full provisioning cycle: the protected one stays.
		c.store.create('persistentvolumeclaims', pvcManifest('other'));
		await waitFor(() => pvc(c, 'other')?.status.phase === 'Bound', {
			what: 'other Bound',
			wakeOn: c.store,
		});
		expect(pvc(c, 'desk-1-data')?.metadata.deletionTimestamp).toBeDefined();
		c.store.delete('pods', NS, 'desk-1', { gracePeriodSeconds: 1 });
		await waitFor(() => !pod(c.store, 'desk-1'), { what: 'desk-1 gone', wakeOn: c.store });
		await waitFor(() => !pvc(c, 'desk-1-data'), { what: 'desk-1-data gone', wakeOn: c.store });
	});

	it('removes a deleted claim at once when no pod uses it', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('unused'));
		await waitFor(() => pvc(c, 'unused')?.status.phase === 'Bound', {
			what: 'unused Bound',
			wakeOn: c.store,
		});
		c.store.delete('persistentvolumeclaims', NS, 'unused');
		await waitFor(() => !pvc(c, 'unused'), { what: 'unused gone', wakeOn: c.store });
	});

	it('marks a claim Lost on request', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('data'));
		await waitFor(() => pvc(c, 'data')?.status.phase === 'Bound', {
			what: 'data Bound',
			wakeOn: c.store,
		});
		c.controllers.loseVolume(NS, 'data');
		expect(pvc(c, 'data')?.status.phase).toBe('Lost');
		const lost = eventsAbout(c.store, 'data').find((e) => e.reason === 'ClaimLost');
		expect(lost?.type).toBe('Warning');
	});
});

describe('events', () => {
	it('bumps count and lastTimestamp of a repeated event instead of writing another', () => {
		const cluster = startCluster();
		const c = cluster;
		const p = c.store.create('pods', podManifest('desk-9'));
		const recorder = new EventRecorder(c.store, new ControllerErrors());
		const source = { component: 'kubelet', host: 'node-a' };
		recorder.record(
			p,
			'Warning',
			'BackOff',
			'Back-off pulling image "x"',
			source,
			'spec.containers{ct}',
		);
		recorder.record(
			p,
			'Warning',
			'BackOff',
			'Back-off pulling image "x"',
			source,
			'spec.containers{ct}',
		);
		recorder.record(p, 'Normal', 'Pulling', 'Pulling image "x"', source, 'spec.containers{ct}');
		const mine = c.store
			.list('events', { namespace: NS })
			.filter((e) => (e.involvedObject as { name: string }).name === 'desk-9')
			.filter(
				(e) =>
					(e.source as { component: string }).component === 'kubelet' &&
					(e.source as { host?: string }).host === 'node-a' &&
					['BackOff', 'Pulling'].includes(e.reason as string) &&
					String(e.message).includes('"x"'),
			);
		expect(mine).toHaveLength(2);
		const backOff = mine.find((e) => e.reason === 'BackOff');
		expect(backOff).toMatchObject({
			count: 2,
			type: 'Warning',
			involvedObject: {
				kind: 'Pod',
				name: 'desk-9',
				namespace: NS,
				uid: p.metadata.uid,
				fieldPath: 'spec.containers{ct}',
			},
			source: { component: 'kubelet', host: 'node-a' },
		});
		expect(backOff?.firstTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
		expect(backOff?.lastTimestamp).toMatch(/Z$/);
	});

	it('trims the oldest events past its limit', () => {
		const cluster = startCluster();
		const c = cluster;
		const p = c.store.create('pods', podManifest('desk-8'));
		const recorder = new EventRecorder(c.store, new ControllerErrors(), 3);
		for (let i = 0; i < 5; i++) {
			recorder.record(p, 'Normal', 'Test', `message ${i}`, { component: 'test' });
		}
		const mine = c.store
			.list('events', { namespace: NS })
			.filter((e) => e.reason === 'Test')
			.map((e) => e.message);
		expect(mine.sort()).toEqual(['message 2', 'message 3', 'message 4']);
	});
});

describe('namespace deletion', () => {
	it('finishes the pods of a deleted namespace without controller errors', async () => {
		const cluster = startCluster();
		const c = cluster;
		c.store.create('persistentvolumeclaims', pvcManifest('desk-1-data'));
		c.store.create('pods', podManifest('desk-1', { claim: 'desk-1-data' }));
		await waitFor(() => isReady(pod(c.store, 'desk-1')), { what: 'desk-1 Ready', wakeOn: c.store });
		c.store.delete('namespaces', undefined, NS);
		await waitFor(() => !c.store.get('namespaces', undefined, NS), {
			what: 'namespace gone',
			wakeOn: c.store,
		});
		expect(c.controllers.errors()).toEqual([]);
	});
});
