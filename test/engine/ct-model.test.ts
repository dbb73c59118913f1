/**
 * Members are normal Corral Containers: the pod and PVC ctpool makes, held field by field
 * against the CT model of Corral's pkg/ct (as the contract writes it down), and a PVC that
 * Corral annotated started by reconcile with the pod Corral would make.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	apply,
	buildPod,
	buildPvc,
	reconcile,
	writeDefinition,
} from '../../source/engine/index.js';
import { BOOTSTRAP_SCRIPT } from '../../source/pool/ct-spec.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { SERVICE_ACCOUNT_MOUNT } from '../../source/sim/defaults.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitReady } from './fixtures.js';

/** The four kinds of CT: privileged or not, init or not. */
const KINDS = [
	{ privileged: false, init: false },
	{ privileged: false, init: true },
	{ privileged: true, init: false },
	{ privileged: true, init: true },
] as const;

/** The bootstrap as Corral's pkg/ct writes it, spelled out here independently of the source. */
const CORRAL_BOOTSTRAP = [
	'set -e',
	'ROOTFS="/corral-rootfs"',
	'MARKER="/corral-rootfs/.corral-seeded"',
	'if [ ! -e "$MARKER" ]; then',
	'  echo "corral: seeding persistent rootfs from image..."',
	'  cp -a --one-file-system /. "$ROOTFS"',
	'  touch "$MARKER"',
	'  echo "corral: seed complete"',
	'fi',
	'for fs in proc sys dev; do',
	'  mkdir -p "$ROOTFS/$fs"',
	'  mount --rbind "/$fs" "$ROOTFS/$fs"',
	'done',
	'exec chroot "$ROOTFS" /bin/sh -c \'cd /root 2>/dev/null || cd /; exec sleep infinity\'',
].join('\n');

/** The container Corral's generatePod makes for a CT spec. */
function corralContainer(o: {
	image: string;
	cpu: number;
	mem: string;
	privileged: boolean;
	init: boolean;
}): Record<string, unknown> {
	const c: Record<string, unknown> = {
		name: 'ct',
		image: o.image,
		stdin: true,
		tty: true,
		resources: {
			limits: { cpu: String(o.cpu), memory: o.mem },
			requests: { cpu: String(o.cpu), memory: o.mem },
		},
		securityContext: { privileged: o.privileged },
		volumeMounts: [{ name: 'data', mountPath: o.privileged ? '/corral-rootfs' : '/data' }],
	};
	if (o.privileged) c.command = ['/bin/sh', '-c', CORRAL_BOOTSTRAP];
	else if (!o.init) c.command = ['sleep', 'infinity'];
	return c;
}

/** The labels of a member: the pool's three beside Corral's two. */
function labels(pool: string, member: string, hash: string): Record<string, string> {
	return {
		'corral.dev/vdi-ct-pool': pool,
		'corral.dev/vdi-ct-member': member,
		'corral.dev/vdi-ct-source': hash,
		'corral.dev/ct': 'true',
		'corral.dev/ct-name': member,
	};
}

describe('the CT model, object by object', () => {
	it('the bootstrap is the one Corral runs', () => {
		expect(BOOTSTRAP_SCRIPT).toBe(CORRAL_BOOTSTRAP);
	});

	for (const kind of KINDS) {
		it(`builds the pod and PVC of a CT exactly (privileged ${kind.privileged}, init ${kind.init})`, () => {
			const spec = poolSpec({ ...kind, cpu: '2', memory: '1Gi', disk: '3Gi' });
			const hash = sourceHash(sourceFields(spec));
			expect(buildPod('desk', 'desk-4', 'corral-vms', spec)).toEqual({
				apiVersion: 'v1',
				kind: 'Pod',
				metadata: {
					name: 'desk-4',
					namespace: 'corral-vms',
					labels: labels('desk', 'desk-4', hash),
				},
				spec: {
					restartPolicy: 'Always',
					containers: [corralContainer({ ...kind, image: spec.image, cpu: 2, mem: '1Gi' })],
					volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'desk-4-data' } }],
				},
			});
			const init = kind.init ? ',"init":true' : '';
			expect(buildPvc('desk', 'desk-4', 'corral-vms', spec)).toEqual({
				apiVersion: 'v1',
				kind: 'PersistentVolumeClaim',
				metadata: {
					name: 'desk-4-data',
					namespace: 'corral-vms',
					labels: labels('desk', 'desk-4', hash),
					annotations: {
						'corral.ct/spec': `{"image":"${spec.image}","cpu":2,"mem":"1Gi","privileged":${kind.privileged}${init}}`,
					},
				},
				spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } } },
			});
		});
	}

	it('takes cpu as a number too, and writes it as whole cores', () => {
		const spec = poolSpec({ cpu: 3 });
		const ct = buildPod('desk', 'desk-1', 'ns', spec).spec!.containers[0]!;
		expect(ct.resources).toEqual({
			limits: { cpu: '3', memory: spec.memory },
			requests: { cpu: '3', memory: spec.memory },
		});
		expect(
			buildPvc('desk', 'desk-1', 'ns', spec).metadata!.annotations!['corral.ct/spec'],
		).toContain('"cpu":3,');
	});
});

describe('the CT model on the cluster', () => {
	let c: TestCluster;
	beforeAll(async () => {
		c = await startTestCluster();
	});
	afterAll(() => c?.close());

	type Pod = KubeObject & {
		spec: { restartPolicy: string; containers: Array<Record<string, unknown>> };
	};

	/**
	 * A pod as stored, its containers without the API credentials mount that the
	 * ServiceAccount admission adds to every pod (Corral's pods get it too).
	 */
	const podOf = async (name: string): Promise<Pod> => {
		const pod = await c.api.get<Pod>('pods', name);
		if (!pod) throw new Error(`pod ${name} not found`);
		for (const ct of pod.spec.containers) {
			const mounts = ct.volumeMounts as Array<{ mountPath: string }> | undefined;
			ct.volumeMounts = mounts?.filter((m) => m.mountPath !== SERVICE_ACCOUNT_MOUNT);
		}
		return pod;
	};

	it('every kind of member, as stored, is the pod Corral makes', async () => {
		for (const [i, kind] of KINDS.entries()) {
			const pool = `kind${i}`;
			const spec = poolSpec({ ...kind, size: 1, cpu: 1, memory: '64Mi' });
			const result = await apply(c.context(), pool, spec);
			expect(result.errors).toEqual([]);
			const pod = await podOf(`${pool}-1`);
			expect(pod.metadata.labels).toEqual(
				labels(pool, `${pool}-1`, sourceHash(sourceFields(spec))),
			);
			expect(pod.spec.restartPolicy).toBe('Always');
			expect(pod.spec.containers).toHaveLength(1);
			expect(pod.spec.containers[0]).toMatchObject(
				corralContainer({ ...kind, image: spec.image, cpu: 1, mem: '64Mi' }),
			);
			if (!kind.privileged && kind.init) expect(pod.spec.containers[0]!.command).toBeUndefined();
		}
	});

	it('starts a Stopped member whose PVC Corral annotated, with the pod Corral would make', async () => {
		const spec = poolSpec({ size: 1, cpu: '2', memory: '128Mi', disk: '1Gi', privileged: true });
		const hash = sourceHash(sourceFields(spec));
		await writeDefinition(c.context(), 'corral', { ...spec, size: 0 });
		// The data PVC as Corral's ct create writes it (its annotation byte for byte), in the pool.
		await c.api.create('persistentvolumeclaims', {
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
			metadata: {
				name: 'corral-1-data',
				labels: labels('corral', 'corral-1', hash),
				annotations: {
					'corral.ct/spec': `{"image":"${spec.image}","cpu":2,"mem":"128Mi","privileged":true}`,
				},
			},
			spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
		});
		const ctx = c.context();
		const result = await apply(ctx, 'corral', spec);
		expect(result.errors).toEqual([]);
		expect(result.actions.map((a) => [a.member, a.step, a.ok])).toEqual([
			['corral-1', 'start', true],
		]);
		const pod = await podOf('corral-1');
		expect(pod.metadata.labels).toEqual(labels('corral', 'corral-1', hash));
		expect(pod.spec.restartPolicy).toBe('Always');
		expect(pod.spec.containers[0]).toMatchObject(
			corralContainer({ image: spec.image, cpu: 2, mem: '128Mi', privileged: true, init: false }),
		);
		await waitReady(ctx, 'corral', 1);
		// Started as it was, not replaced: the member is not drifted and keeps its PVC.
		const again = await reconcile(ctx, 'corral');
		expect(again.actions).toEqual([]);
		expect(again.status.members[0]).toMatchObject({
			name: 'corral-1',
			state: 'Ready',
			drifted: false,
		});
	});

	it('starts a Stopped member whose PVC an older ctpool build annotated', async () => {
		const spec = poolSpec({ size: 1, cpu: '1', memory: '64Mi', disk: '1Gi', init: true });
		const hash = sourceHash(sourceFields(spec));
		await writeDefinition(c.context(), 'older', { ...spec, size: 0 });
		await c.api.create('persistentvolumeclaims', {
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
			metadata: {
				name: 'older-1-data',
				labels: labels('older', 'older-1', hash),
				annotations: {
					'corral.ct/spec': `{"cpu":"1","disk":"1Gi","image":"${spec.image}","init":true,"memory":"64Mi","privileged":false,"storageClass":""}`,
				},
			},
			spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
		});
		const result = await apply(c.context(), 'older', spec);
		expect(result.actions.map((a) => [a.member, a.step, a.ok])).toEqual([
			['older-1', 'start', true],
		]);
		const ct = (await podOf('older-1')).spec.containers[0]!;
		expect(ct).toMatchObject(
			corralContainer({ image: spec.image, cpu: 1, mem: '64Mi', privileged: false, init: true }),
		);
		expect(ct.command).toBeUndefined();
	});
});
