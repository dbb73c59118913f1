/**
 * Issue 12, findings 1, 2 and 7: nothing under a member's name is the pool's unless it
 * carries the pool's labels (or, for the console Service, selects the member), and a Lease
 * that will not expire as it should strands no member silently. Each scene is the issue's.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	apply,
	claim,
	readPool,
	reconcile,
	release,
	setMaintenance,
} from '../../source/engine/index.js';
import { formatMicroTime, leaseName, RECONCILER_IDENTITY } from '../../source/pool/index.js';
import { poolError, waitReady } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** Plants an object by hand, as another team's kubectl would. */
function plant(
	resource: string,
	obj: Omit<KubeObject, 'metadata'> & { metadata: object },
): Promise<KubeObject> {
	return c.api.create(resource, obj as KubeObject);
}

function payrollPod(name: string): Promise<KubeObject> {
	return plant('pods', {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: { name, labels: { app: 'payroll-db' } },
		spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
	});
}

function plainPvc(name: string): Promise<KubeObject> {
	return plant('persistentvolumeclaims', {
		apiVersion: 'v1',
		kind: 'PersistentVolumeClaim',
		metadata: { name, labels: { app: 'billing' } },
		spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
	});
}

function plainLease(name: string, holder: string, renewAt = Date.now()): Promise<KubeObject> {
	return plant('leases', {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: { name },
		spec: {
			holderIdentity: holder,
			leaseDurationSeconds: 15,
			acquireTime: formatMicroTime(renewAt),
			renewTime: formatMicroTime(renewAt),
		},
	});
}

/** The object as stored now, or undefined. */
function stored(resource: string, name: string): Promise<KubeObject | undefined> {
	return c.api.get(resource, name);
}

/** Waits until the pod of that name is gone (the test removes the pool's pod by hand). */
async function removePod(name: string): Promise<void> {
	await c.api.delete('pods', name, { gracePeriodSeconds: 0 });
	await waitFor(async () => !(await stored('pods', name)), `pod ${name} gone`);
}

describe("finding 1: a pod sec-1 that is not the pool's", () => {
	let payrollUid: string | undefined;
	it('is shown, not free, and never handed out, released or replaced', async () => {
		const ctx = c.context();
		await apply(ctx, 'sec', poolSpec({ size: 1 }));
		await waitReady(ctx, 'sec', 1);
		await removePod('sec-1');
		const payroll = await payrollPod('sec-1');
		payrollUid = payroll.metadata.uid;

		const snap = await readPool(ctx, 'sec');
		const m = snap.members.find((v) => v.name === 'sec-1')!;
		expect(m.free).toBe(false);
		expect(m.foreign).toEqual(['pod']);
		expect(snap.counts.free).toBe(0);

		const noFree = await poolError(claim(ctx, 'sec', 'mallory@example.com'));
		expect(noFree.kind).toBe('no-free');
		// Issue 23: counted and named as a stranger's, not as taken by claims at the same time.
		expect(noFree.message).toBe(
			"pool has no free members (desired 1, claimed 0, unschedulable 0, blocked by objects not the pool's 1 (sec-1: pod))",
		);
		// mallory never got a claim on it
		expect(await stored('leases', leaseName('sec-1'))).toBeUndefined();

		const r = await reconcile(ctx, 'sec');
		expect(r.errors.join('\n')).toContain(
			"sec-1: a pod of that name is not this pool's; ctpool will not touch it",
		);
		expect((await stored('pods', 'sec-1'))?.metadata.uid).toBe(payrollUid);
		expect((await stored('pods', 'sec-1'))?.metadata.labels).toEqual({ app: 'payroll-db' });
	});

	it('survives a release of the member by whoever holds its Lease, forced or not', async () => {
		const ctx = c.context();
		// A claim on it, as it stood before the fix (a Lease of the pool's).
		await plant('leases', {
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: {
				name: leaseName('sec-1'),
				labels: { 'corral.dev/vdi-ct-pool': 'sec', 'corral.dev/vdi-ct-member': 'sec-1' },
			},
			spec: {
				holderIdentity: 'mallory@example.com',
				leaseDurationSeconds: 3600,
				acquireTime: formatMicroTime(Date.now()),
				renewTime: formatMicroTime(Date.now()),
			},
		});
		const mark = c.mark();
		for (const force of [false, true]) {
			const err = await poolError(
				release(ctx, 'sec', 'sec-1', force ? 'admin' : 'mallory@example.com', { force }),
			);
			expect(err.message).toContain("sec-1: a pod of that name is not this pool's");
		}
		expect((await stored('pods', 'sec-1'))?.metadata.uid).toBe(payrollUid);
		expect((await c.ctpoolMutations(mark)).filter((m) => m.resource !== 'events')).toEqual([]);
	});
});

describe('finding 1: release desk desk-7 admin --force on a pool of size 3', () => {
	it('deletes nothing of the unlabelled pod, PVC and Lease under desk-7', async () => {
		const ctx = c.context();
		await apply(ctx, 'desk', poolSpec({ size: 3 }));
		const pod = await payrollPod('desk-7');
		const pvc = await plainPvc('desk-7-data');
		const lease = await plainLease(leaseName('desk-7'), 'billing-leader');
		const mark = c.mark();
		const err = await poolError(release(ctx, 'desk', 'desk-7', 'admin', { force: true }));
		expect(err.message).toContain("desk-7: a Lease of that name is not this pool's");
		// The same objects (the kubelet and the volume binder may update their status), unchanged.
		for (const [resource, o] of [
			['pods', pod],
			['persistentvolumeclaims', pvc],
			['leases', lease],
		] as const) {
			const now = await stored(resource, o.metadata.name);
			expect(now?.metadata.uid).toBe(o.metadata.uid);
			expect(now?.metadata.labels).toEqual(o.metadata.labels);
			expect(now?.metadata.deletionTimestamp).toBeUndefined();
		}
		expect((await stored('leases', lease.metadata.name))?.spec).toEqual(lease.spec);
		expect((await c.ctpoolMutations(mark)).filter((m) => m.resource !== 'events')).toEqual([]);
	});

	it('leaves a console Service alone unless it selects exactly the member; it never blocks a release', async () => {
		const ctx = c.context();
		await waitReady(ctx, 'desk', 3);
		const { member } = await claim(ctx, 'desk', 'kim@example.com');
		const svc = await plant('services', {
			apiVersion: 'v1',
			kind: 'Service',
			metadata: { name: `${member}-svc` },
			spec: { selector: { app: 'billing' }, ports: [{ port: 80 }] },
		});
		// Issue 23: the release goes through, the stranger's Service stays, and the answer warns.
		const done = await release(ctx, 'desk', member, 'kim@example.com');
		expect(done.released).toBe(true);
		expect(done.warnings?.join('\n')).toContain(
			`Service ${member}-svc does not select ${member} alone`,
		);
		expect(ctx.events.some((e) => e.partial && e.message.includes(`${member}-svc`))).toBe(true);
		expect((await stored('services', `${member}-svc`))?.metadata.uid).toBe(svc.metadata.uid);
		expect(await stored('leases', leaseName(member))).toBeUndefined();
		// Forced, too.
		await waitReady(ctx, 'desk', 3);
		const { member: again } = await claim(ctx, 'desk', 'lee@example.com');
		const other = await plant('services', {
			apiVersion: 'v1',
			kind: 'Service',
			metadata: { name: `${again}-svc` },
			spec: { selector: { app: 'billing' }, ports: [{ port: 80 }] },
		}).catch(() => stored('services', `${again}-svc`));
		expect((await release(ctx, 'desk', again, 'ops@example.com', { force: true })).released).toBe(
			true,
		);
		expect((await stored('services', `${again}-svc`))?.metadata.uid).toBe(other?.metadata.uid);
		await c.api.delete('services', `${member}-svc`);
		await c.api.delete('services', `${again}-svc`);
		await waitReady(ctx, 'desk', 3);
		const { member: third } = await claim(ctx, 'desk', 'kim@example.com');
		// Corral's own Service of the member (no labels, selects its ct-name) goes with it.
		await plant('services', {
			apiVersion: 'v1',
			kind: 'Service',
			metadata: { name: `${third}-svc` },
			spec: { selector: { 'corral.dev/ct-name': third }, ports: [{ port: 22 }] },
		});
		await release(ctx, 'desk', third, 'kim@example.com');
		expect(await stored('services', `${third}-svc`)).toBeUndefined();
	});
});

describe('finding 1: maintenance desk desk-9 on', () => {
	it('does not annotate an unlabelled PVC desk-9-data', async () => {
		const ctx = c.context();
		await apply(ctx, 'mnt', poolSpec({ size: 9 }));
		await waitFor(
			async () =>
				(await readPool(ctx, 'mnt')).members.some(
					(m) => m.name === 'mnt-9' && m.state !== 'Missing',
				),
			'mnt-9 made',
		);
		// the pool's own desk-9 gone, a stranger in its place
		await removePod('mnt-9');
		// Its PVC goes once no pod uses it (the pvc-protection finalizer on a real cluster).
		await c.api.delete('persistentvolumeclaims', 'mnt-9-data');
		await waitFor(
			async () => !(await stored('persistentvolumeclaims', 'mnt-9-data')),
			'PVC mnt-9-data gone',
		);
		const pvc = await plainPvc('mnt-9-data');
		const mark = c.mark();
		const err = await poolError(setMaintenance(ctx, 'mnt', 'mnt-9', true, 'disk check'));
		expect(err.message).toContain("mnt-9: a PVC of that name is not this pool's");
		const now = await stored('persistentvolumeclaims', 'mnt-9-data');
		expect(now?.metadata.uid).toBe(pvc.metadata.uid);
		expect(now?.metadata.annotations?.['corral.dev/vdi-maintenance']).toBeUndefined();
		expect((await c.ctpoolMutations(mark)).filter((m) => m.resource !== 'events')).toEqual([]);
	});
});

describe('finding 7: an unlabelled Lease corral-vdi-ct-pre-2', () => {
	it('is reported by apply and reconcile, never deleted, and the member is not free', async () => {
		const ctx = c.context();
		const lease = await plainLease(leaseName('pre-2'), 'someone-else');
		const r = await apply(ctx, 'pre', poolSpec({ size: 3 }));
		expect(r.errors.join('\n')).toContain("pre-2: a Lease of that name is not this pool's");
		expect(await stored('pods', 'pre-2')).toBeUndefined();
		const again = await reconcile(ctx, 'pre');
		expect(again.errors.join('\n')).toContain("pre-2: a Lease of that name is not this pool's");
		expect((await stored('leases', leaseName('pre-2')))?.metadata.resourceVersion).toBe(
			lease.metadata.resourceVersion,
		);
		const snap = await readPool(ctx, 'pre');
		const m = snap.members.find((v) => v.name === 'pre-2')!;
		expect(m.free).toBe(false);
		expect(m.foreign).toContain('Lease');
	});
});

describe('finding 2: a reconciler Lease with renewTime in the future', () => {
	it('is reported by reconcile (non-zero) and status, and release --force recovers the member', async () => {
		const ctx = c.context();
		await apply(ctx, 'fut', poolSpec({ size: 2 }));
		await waitReady(ctx, 'fut', 2);
		const year = Date.parse('2099-01-01T00:00:00Z');
		await c.api.create('leases', {
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: {
				name: leaseName('fut-2'),
				labels: { 'corral.dev/vdi-ct-pool': 'fut', 'corral.dev/vdi-ct-member': 'fut-2' },
			},
			spec: {
				holderIdentity: RECONCILER_IDENTITY,
				leaseDurationSeconds: 600,
				acquireTime: formatMicroTime(year),
				renewTime: formatMicroTime(year),
			},
		});
		const r = await reconcile(ctx, 'fut');
		expect(r.errors.join('\n')).toMatch(
			/fut-2: its Lease's renewTime 2099-01-01T00:00:00.000Z is in the future/,
		);
		expect(r.errors.join('\n')).toContain('ctpool release <pool> fut-2 <identity> --force');
		const m = (await readPool(ctx, 'fut')).members.find((v) => v.name === 'fut-2')!;
		expect(m.leaseProblem).toContain('in the future');
		expect(m.free).toBe(false);
		// Without --force: refused, naming the way out; with it: the member is made again.
		const refused = await poolError(release(ctx, 'fut', 'fut-2', 'admin'));
		expect(refused.message).toContain('--force');
		const oldPod = (await stored('pods', 'fut-2'))?.metadata.uid;
		const done = await release(ctx, 'fut', 'fut-2', 'admin', { force: true });
		expect(done).toMatchObject({ released: true, recreated: true });
		expect((await stored('pods', 'fut-2'))?.metadata.uid).not.toBe(oldPod);
		expect(await stored('leases', leaseName('fut-2'))).toBeUndefined();
		expect((await reconcile(ctx, 'fut')).errors).toEqual([]);
	});

	it('a reconciler Lease whose duration makes no sense is reported the same way', async () => {
		const ctx = c.context();
		await c.api.create('leases', {
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: {
				name: leaseName('fut-1'),
				labels: { 'corral.dev/vdi-ct-pool': 'fut', 'corral.dev/vdi-ct-member': 'fut-1' },
			},
			spec: {
				holderIdentity: RECONCILER_IDENTITY,
				leaseDurationSeconds: 99_999_999,
				acquireTime: formatMicroTime(Date.now()),
				renewTime: formatMicroTime(Date.now()),
			},
		});
		const r = await reconcile(ctx, 'fut');
		expect(r.errors.join('\n')).toContain('fut-1: its reconciler Lease lasts 99999999 s');
		await release(ctx, 'fut', 'fut-1', 'admin', { force: true });
		expect((await reconcile(ctx, 'fut')).errors).toEqual([]);
	});
});
