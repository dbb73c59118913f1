/**
 * A member whose pod waits for its PVC's volume (the scheduler's "unbound immediate
 * PersistentVolumeClaims") is "Starting (waiting for its volume)" in `apply`/`reconcile`
 * and `status`, never Unschedulable, and the pool is not exhausted by it (issue 24, finding
 * 8). The PVCs here name a StorageClass no provisioner serves, so they stay Pending; the
 * commands run with their clock two minutes ahead, past the grace of a new PVC.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { ctpool } from './capture.js';

let c: TestCluster;
const later = { engine: { now: () => Date.now() + 120_000 } };

beforeAll(async () => {
	c = await startTestCluster();
	const r = await ctpool([
		'apply',
		'slow',
		'--size',
		'2',
		...POOL_FLAGS,
		'--storage-class',
		'no-provisioner',
		...c.kc,
	]);
	expect(r.stderr).toBe('');
	// the scheduler has looked at both pods and held them back for their volumes
	await waitFor(async () => {
		const pods = await c.api.list('pods', { labelSelector: 'corral.dev/vdi-ct-pool=slow' });
		return (
			pods.length === 2 &&
			pods.every((p) => JSON.stringify(p).includes('unbound immediate PersistentVolumeClaims'))
		);
	}, 'both pods held back for their volumes');
}, 60_000);
afterAll(() => c?.close());

describe('a member waiting for its volume', () => {
	it('reconcile says starting, not unschedulable, and the pool is not exhausted', async () => {
		const r = await ctpool(['reconcile', 'slow', ...c.kc], later);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain(
			'pool slow: desired 2, observed 2, ready 0, claimed 0, free 2, unschedulable 0, starting 2 (waiting for their volumes)',
		);
		expect(r.stdout).not.toContain('exhausted');
	});

	it('status shows each member Starting, waiting for its volume, with where to look', async () => {
		const r = await ctpool(['status', 'slow', ...c.kc], later);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('unschedulable 0   starting 2 (waiting for their volumes)');
		expect(r.stdout).not.toContain('EXHAUSTED');
		expect(r.stdout).toMatch(/slow-1\s+Starting\s+.*waiting for its volume/);
		expect(r.stdout).toContain(
			`waiting for its volume (PVC slow-1-data still Pending after a minute: check its StorageClass and provisioner, kubectl describe pvc slow-1-data -n ${c.ns})`,
		);
		const json = JSON.parse(
			(await ctpool(['status', 'slow', '-o', 'json', ...c.kc], later)).stdout,
		);
		expect(json.unschedulable).toBe(0);
		expect(json.exhausted).toBe(false);
		expect(json.members.map((m: { state: string }) => m.state)).toEqual(['Starting', 'Starting']);
	});
});
