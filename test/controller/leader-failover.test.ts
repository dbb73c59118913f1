/**
 * The Deployment's two replicas as two processes of the built binary (`reconcile --all
 * --watch --leader-elect`): one leads and writes, the other stands by with its watches warm
 * and writes nothing; SIGKILL the leader and the standby takes over within the lease duration
 * and repairs what broke meanwhile. The time is printed ([measured]); `npm run bench --
 * --scenario failover` measures it on both clusters.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDefinition } from '../../source/engine/apply.js';
import { requireBuild } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { type ReconcilerProcess, sample, startReconciler } from '../support/reconciler-process.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const replicas: ReconcilerProcess[] = [];

beforeAll(async () => {
	requireBuild();
	c = await startTestCluster();
});
afterAll(async () => {
	for (const r of replicas) if (r.child.exitCode === null) r.child.kill('SIGKILL');
	await c?.close();
});

/** A replica as the Deployment runs it, in the test namespace. */
async function replica(): Promise<ReconcilerProcess> {
	const r = await startReconciler(['--all', '-n', c.ns, '--leader-elect'], c.kubeconfigPath);
	replicas.push(r);
	return r;
}

const POOL = 'fo';
const labels = { namespace: '', pool: POOL };

/** How many reconciles of the pool a replica made, from its metrics. */
async function reconciles(r: ReconcilerProcess): Promise<number> {
	return sample(await r.metrics(), 'ctpool_reconcile_duration_seconds_count', labels) ?? 0;
}

/** Deletes a member's pod at once and resolves with its uid. */
async function deletePod(name: string): Promise<string> {
	const uid = (await c.api.get('pods', name))?.metadata.uid ?? '';
	await c.api.delete('pods', name, { gracePeriodSeconds: 0 });
	return uid;
}

/** Waits until the member's pod is there again, a new one. */
function madeAgain(name: string, oldUid: string, timeoutMs: number): Promise<unknown> {
	return waitFor(
		async () => {
			const uid = (await c.api.get('pods', name))?.metadata.uid;
			return uid !== undefined && uid !== oldUid;
		},
		{ what: `pod ${name} made again`, timeoutMs },
	);
}

describe('reconcile --watch --leader-elect, two replicas', { timeout: 180_000 }, () => {
	it('one writes while both run; SIGKILL it and the other takes over and repairs', async () => {
		labels.namespace = c.ns;
		await writeDefinition(c.context(), POOL, poolSpec({ size: 2 }));
		const a = await replica();
		await waitFor(() => a.stderr().includes(': reconciling\n') || undefined, {
			what: 'the first replica leads',
			detail: a.stderr,
		});
		const b = await replica();
		const aId = await a.identity();
		await waitFor(() => b.stderr().includes(`the leader is ${aId}`) || undefined, {
			what: 'the second replica sees the leader',
			detail: b.stderr,
		});
		await c.running(POOL);
		expect(sample(await a.metrics(), 'ctpool_leader')).toBe(1);
		expect(sample(await b.metrics(), 'ctpool_leader')).toBe(0);

		// both run: the leader repairs a deleted pod, the standby does nothing
		const first = await deletePod(`${POOL}-1`);
		await madeAgain(`${POOL}-1`, first, 30_000);
		await waitFor(() => /fo-1 started/.test(a.stdout()) || undefined, {
			what: 'the leader says it started fo-1',
			detail: a.stdout,
		});
		expect(b.stdout()).toBe('');
		expect(await reconciles(a)).toBeGreaterThan(0);
		expect(await reconciles(b)).toBe(0);
		// warm: the standby's watches are in sync, so it is ready
		expect(sample(await b.metrics(), 'ctpool_watch_synced', { kind: 'pods' })).toBe(1);

		// the leader dies without a word; the pool breaks meanwhile
		a.child.kill('SIGKILL');
		const killedAt = Date.now();
		const second = await deletePod(`${POOL}-2`);
		await madeAgain(`${POOL}-2`, second, 60_000);
		const failoverMs = Date.now() - killedAt;
		console.log(`[measured] failover after SIGKILL of the leader: ${failoverMs} ms`);
		const bId = await b.identity();
		expect(b.stderr()).toContain(`leading (Lease ${c.ns}/ctpool-reconciler, ${bId}): reconciling`);
		expect(sample(await b.metrics(), 'ctpool_leader')).toBe(1);
		const lease = (await c.api.get('leases', 'ctpool-reconciler'))?.spec as {
			holderIdentity?: string;
			leaseTransitions?: number;
		};
		expect(lease).toMatchObject({ holderIdentity: bId, leaseTransitions: 1 });

		// stopped, the leader hands the Lease on (an empty holder)
		b.child.kill('SIGINT');
		expect(await b.exited).toBe(0);
		const released = (await c.api.get('leases', 'ctpool-reconciler'))?.spec as
			| { holderIdentity?: string }
			| undefined;
		expect(released?.holderIdentity ?? '').toBe('');
	});
});
