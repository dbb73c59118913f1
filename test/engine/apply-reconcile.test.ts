import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, reconcile } from '../../source/engine/index.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { parseStatus } from '../../source/pool/status.js';
import { SERVICE_ACCOUNT_MOUNT } from '../../source/sim/defaults.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { objects, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

type Container = {
	name: string;
	image: string;
	command?: string[];
	resources: { requests: Record<string, string>; limits: Record<string, string> };
	securityContext?: { privileged?: boolean };
	volumeMounts: Array<{ name: string; mountPath: string }>;
};

type Pod = KubeObject & {
	spec: {
		hostname?: string;
		containers: Container[];
		volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>;
	};
};

type Pvc = KubeObject & {
	spec: {
		accessModes: string[];
		resources: { requests: { storage: string } };
		storageClassName?: string;
	};
};

/** A container's mounts but the API credentials that the ServiceAccount admission adds. */
function ownMounts(ct: Container): Container['volumeMounts'] {
	return ct.volumeMounts.filter((m) => m.mountPath !== SERVICE_ACCOUNT_MOUNT);
}

/** A pod's volumes but the ServiceAccount admission's kube-api-access-xxxxx. */
function ownVolumes(pod: Pod): Pod['spec']['volumes'] {
	return pod.spec.volumes.filter((v) => !v.name.startsWith('kube-api-access-'));
}

async function podOf(c: TestCluster, name: string): Promise<Pod> {
	const pod = await c.api.get<Pod>('pods', name);
	if (!pod) throw new Error(`pod ${name} not found`);
	return pod;
}

async function pvcOf(c: TestCluster, name: string): Promise<Pvc> {
	const pvc = await c.api.get<Pvc>('persistentvolumeclaims', name);
	if (!pvc) throw new Error(`PVC ${name} not found`);
	return pvc;
}

describe('apply then reconcile', () => {
	it('creates exactly size members with the contract labels, hash, annotation, resources, command and mount', async () => {
		const spec = poolSpec({ size: 3, cpu: '2', memory: '128Mi', disk: '2Gi' });
		const ctx = c.context();
		const result = await apply(ctx, 'desk', spec);
		expect(result.errors).toEqual([]);
		expect(result.actions.map((a) => [a.member, a.step, a.ok])).toEqual([
			['desk-1', 'create', true],
			['desk-2', 'create', true],
			['desk-3', 'create', true],
		]);
		const hash = sourceHash(sourceFields(spec));
		const pods = [...(await objects(c, 'pods')).keys()].filter((n) => n.startsWith('desk-'));
		expect(pods.sort()).toEqual(['desk-1', 'desk-2', 'desk-3']);
		for (const member of pods) {
			const labels = {
				'corral.dev/vdi-ct-pool': 'desk',
				'corral.dev/vdi-ct-member': member,
				'corral.dev/vdi-ct-source': hash,
				'corral.dev/ct': 'true',
				'corral.dev/ct-name': member,
			};
			const pod = await podOf(c, member);
			expect(pod.metadata.labels).toEqual(labels);
			expect(pod.spec.containers).toHaveLength(1);
			const ct = pod.spec.containers[0]!;
			expect(ct.name).toBe('ct');
			expect(ct.image).toBe(spec.image);
			expect(ct.command).toEqual(['sleep', 'infinity']);
			expect(ct.resources.requests).toEqual({ cpu: '2', memory: '128Mi' });
			expect(ct.resources.limits).toEqual({ cpu: '2', memory: '128Mi' });
			expect(ct.securityContext?.privileged).not.toBe(true);
			expect(ownMounts(ct)).toEqual([{ name: 'data', mountPath: '/data' }]);
			expect(ownVolumes(pod)).toEqual([
				{ name: 'data', persistentVolumeClaim: { claimName: `${member}-data` } },
			]);
			const pvc = await pvcOf(c, `${member}-data`);
			expect(pvc.metadata.labels).toEqual(labels);
			expect(pvc.metadata.annotations?.['corral.ct/spec']).toBe(
				'{"image":"ghcr.io/example/desktop:1","cpu":2,"mem":"128Mi","privileged":false}',
			);
			expect(pvc.spec.accessModes).toEqual(['ReadWriteOnce']);
			expect(pvc.spec.resources.requests.storage).toBe('2Gi');
		}
		// No Lease is left behind, and the status was recorded.
		expect([...(await objects(c, 'leases')).keys()].filter((n) => n.includes('desk-'))).toEqual([]);
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-desk')) as KubeObject & {
			data: Record<string, string>;
		};
		expect(JSON.parse(cm.data.spec!)).toEqual(spec);
		expect(parseStatus(cm.data.status)?.observed).toBe(3);
		expect(result.statusWritten).toBe(true);
	});

	it('runs the bootstrap even with init, and mounts the PVC as the root file system when privileged', async () => {
		const spec = poolSpec({ size: 1, init: true, privileged: true, storageClass: 'wait' });
		await apply(c.context(), 'priv', spec);
		const ct = (await podOf(c, 'priv-1')).spec.containers[0]!;
		expect(ct.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
		expect(ct.securityContext?.privileged).toBe(true);
		expect(ownMounts(ct)).toEqual([{ name: 'data', mountPath: '/corral-rootfs' }]);
		expect((await pvcOf(c, 'priv-1-data')).spec.storageClassName).toBe('wait');
		// An empty storageClass leaves the field out (the cluster default applies).
		await apply(c.context(), 'plain', poolSpec({ size: 1 }));
		expect((await pvcOf(c, 'plain-1-data')).spec.storageClassName).not.toBe('');
	});

	it('a second reconcile with no change writes nothing and makes at most 5 requests', async () => {
		const ctx = c.context();
		await apply(ctx, 'calm', poolSpec({ size: 4 }));
		await waitReady(ctx, 'calm', 4);
		await reconcile(ctx, 'calm'); // records the Ready status
		const mark = c.mark();
		const again = await reconcile(ctx, 'calm');
		expect(again.actions).toEqual([]);
		expect(again.errors).toEqual([]);
		expect(again.statusWritten).toBe(false);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(await c.ctpoolRequests(mark)).toBeLessThanOrEqual(5);
	});

	it('records one Kubernetes Event per bulk create on the pool ConfigMap, one on the PVC of a single member', async () => {
		const ctpoolEvents = async (prefix: string) =>
			(await c.api.list('events')).filter(
				(e) =>
					(e as { source?: { component?: string } }).source?.component === 'ctpool' &&
					(e as { involvedObject?: { name?: string } }).involvedObject?.name?.startsWith(prefix),
			) as Array<
				KubeObject & {
					reason: string;
					message: string;
					involvedObject: { kind: string; name: string };
				}
			>;
		await apply(c.context({ actor: 'ops@example.com' }), 'evt', poolSpec({ size: 3 }));
		const bulk = await ctpoolEvents('corral-vdi-ctpool-evt');
		expect(bulk.map((e) => [e.involvedObject.kind, e.involvedObject.name, e.reason])).toEqual([
			['ConfigMap', 'corral-vdi-ctpool-evt', 'Created'],
		]);
		// the acting identity, and the user the cluster authenticated (its name differs per cluster)
		expect(bulk[0]?.message).toMatch(
			/^created evt-1\.\.evt-3 \(3 members\) by ops@example\.com \(user [^)]+\): from ghcr\.io\/example\/desktop:1$/,
		);
		expect(await ctpoolEvents('evt-')).toEqual([]);

		await apply(c.context({ actor: 'ops@example.com' }), 'evt', poolSpec({ size: 4 }));
		const single = await ctpoolEvents('evt-');
		expect(single.map((e) => [e.involvedObject.kind, e.involvedObject.name, e.reason])).toEqual([
			['PersistentVolumeClaim', 'evt-4-data', 'Created'],
		]);
		expect(single[0]?.message).toMatch(
			/^created evt-4 by ops@example\.com \(user [^)]+\): from ghcr\.io\/example\/desktop:1$/,
		);
	});
});
