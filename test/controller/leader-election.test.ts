/**
 * Leader election with a Lease lock (issue 22): one candidate leads, in client-go's Lease
 * shape; a leader stopped hands the Lease on; a leader whose Lease is taken stops at once; a
 * Lease of any shape is read without a throw. Short durations, so that the test takes seconds.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	type LeaderElector,
	parseLockRecord,
	startLeaderElection,
} from '../../source/controller/leader-election.js';
import { loadKube } from '../../source/kube/config.js';
import { formatMicroTime } from '../../source/pool/lease.js';
import { roleRules } from '../../source/pool/permissions.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const electors: LeaderElector[] = [];
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(async () => {
	for (const e of electors) await e.stop();
	await c?.close();
});

/** A candidate on the Lease, recording its transitions. */
function candidate(lease: string, identity: string, kube = c.kube) {
	const log: string[] = [];
	const elector = startLeaderElection({
		kube,
		namespace: c.ns,
		name: lease,
		identity,
		leaseDurationMs: 3000,
		renewDeadlineMs: 2000,
		retryPeriodMs: 500,
		onStartedLeading: () => log.push('leading'),
		onStoppedLeading: (why) => log.push(`stopped: ${why}`),
		onNewLeader: (who) => log.push(`leader ${who}`),
	});
	electors.push(elector);
	return { elector, log };
}

interface LeaseSpec {
	holderIdentity?: string;
	leaseDurationSeconds?: number;
	acquireTime?: string;
	renewTime?: string;
	leaseTransitions?: number;
}

async function leaseSpec(name: string): Promise<LeaseSpec> {
	return ((await c.api.get('leases', name))?.spec ?? {}) as LeaseSpec;
}

const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('leader election', { timeout: 60_000 }, () => {
	it('elects one leader in the Lease shape of client-go, and hands the Lease on when it stops', async () => {
		const a = candidate('le-one', 'replica-a_1');
		const b = candidate('le-one', 'replica-b_2');
		const leader = await waitFor(
			() => (a.elector.isLeader() ? a : b.elector.isLeader() ? b : undefined),
			'a leader',
		);
		const other = leader === a ? b : a;
		const spec = await leaseSpec('le-one');
		expect(spec).toMatchObject({
			holderIdentity: leader === a ? 'replica-a_1' : 'replica-b_2',
			leaseDurationSeconds: 3,
			leaseTransitions: 0,
		});
		expect(spec.acquireTime).toMatch(MICRO);
		expect(spec.renewTime).toMatch(MICRO);
		// it renews; the other stands by all along
		const renewed = spec.renewTime;
		await waitFor(async () => (await leaseSpec('le-one')).renewTime !== renewed, 'a renewal');
		await waitFor(() => other.log.length > 0 || undefined, 'the other sees the leader');
		expect(other.elector.isLeader()).toBe(false);
		expect(other.log).toEqual([`leader ${spec.holderIdentity}`]);

		await leader.elector.stop();
		expect(leader.log).toEqual(['leading', 'stopped: stopping']);
		await waitFor(() => other.elector.isLeader() || undefined, 'the other takes over');
		expect(await leaseSpec('le-one')).toMatchObject({
			holderIdentity: other === a ? 'replica-a_1' : 'replica-b_2',
			leaseTransitions: 1,
		});
	});

	it("leads with exactly the reconciler's Role (deploy/role.yaml, ctpool rbac)", async () => {
		const rules = roleRules().flatMap((g) => g.rules);
		const kube = await loadKube({ kubeconfig: await c.grant('le-reconciler', rules) });
		const a = candidate('le-role', 'replica-a_4', kube);
		await waitFor(() => a.elector.isLeader() || undefined, 'it leads');
		await a.elector.stop();
		expect(a.log).toEqual(['leading', 'stopped: stopping']);
		expect((await leaseSpec('le-role')).holderIdentity).toBe('');
	});

	it('stops leading at once when its Lease is taken', async () => {
		const a = candidate('le-taken', 'replica-a_3');
		await waitFor(() => a.elector.isLeader() || undefined, 'a leads');
		const lease = await c.api.get('leases', 'le-taken');
		const now = formatMicroTime(Date.now());
		await c.api.put('leases', {
			...lease!,
			spec: { ...(lease!.spec as object), holderIdentity: 'intruder', renewTime: now },
		});
		await waitFor(() => !a.elector.isLeader() || undefined, 'a stands down');
		expect(a.log).toEqual(['leading', 'leader intruder', 'stopped: the Lease is held by intruder']);
	});

	it('reads a Lease of any shape without a throw, bounding what it keeps', () => {
		for (const spec of [
			{ leaseDurationSeconds: JSON.parse('1e309'), holderIdentity: 5, leaseTransitions: -1 },
			{ leaseDurationSeconds: '15', holderIdentity: 'x'.repeat(10_000), leaseTransitions: 1.5 },
			null,
			'spec',
		]) {
			const r = parseLockRecord({ metadata: { resourceVersion: 7 }, spec }, 15_000);
			expect(r.durationMs).toBe(15_000);
			expect(r.transitions).toBe(0);
			expect(r.holder.length).toBeLessThanOrEqual(256);
			expect(r.resourceVersion).toBe('');
		}
		expect(parseLockRecord(undefined, 15_000).holder).toBe('');
	});
});
