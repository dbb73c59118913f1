import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, reconcile } from '../../source/engine/index.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { ctpoolRequestList, poolError, putLease, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describe('claim', () => {
	it('50 concurrent claims on 50 members give 50 distinct members; the 51st gets no-free with counts', async () => {
		const ctx = c.context();
		await apply(ctx, 'big', poolSpec({ size: 50 }));
		await waitReady(ctx, 'big', 50);
		const ids = Array.from({ length: 50 }, (_, i) => `user${i}@example.com`);
		const results = await Promise.all(ids.map((id) => claim(c.context(), 'big', id)));
		const members = results.map((r) => r.member);
		expect(new Set(members).size).toBe(50);
		for (const r of results) expect(r).toMatchObject({ existing: false, renewed: false });
		// Each holder is the one the Lease names, and the PVC carries the display copy.
		for (const [i, r] of results.entries()) {
			expect((await c.api.get('leases', `corral-vdi-ct-${r.member}`))?.spec).toMatchObject({
				holderIdentity: ids[i],
				leaseDurationSeconds: 3600,
			});
			expect(
				(await c.api.get('persistentvolumeclaims', `${r.member}-data`))?.metadata.annotations?.[
					'corral.dev/vdi-assigned-to'
				],
			).toBe(ids[i]);
		}
		const err = await poolError(claim(ctx, 'big', 'late@example.com'));
		expect(err.kind).toBe('no-free');
		expect(err.message).toBe('pool has no free members (desired 50, claimed 50, unschedulable 0)');
	});

	it('concurrent claims of one context share one read of the pool and pick distinct members without racing', async () => {
		const ctx = c.context();
		await apply(ctx, 'broker', poolSpec({ size: 30 }));
		await waitReady(ctx, 'broker', 30);
		const mark = c.mark();
		const ids = Array.from({ length: 30 }, (_, i) => `b${i}@example.com`);
		const results = await Promise.all(ids.map((id) => claim(ctx, 'broker', id)));
		expect(new Set(results.map((r) => r.member)).size).toBe(30);
		const mine = await ctpoolRequestList(c, mark);
		// One definition read and one list of each kind for all 30 claims; after their wins, a
		// few shared lists of the Leases (the check for a double claim by one identity), not one
		// per claim. Wins that come back in one turn share a list: the real API server's answers
		// spread over more turns than the simulated one's (2 to 9 lists seen, against 2 to 5).
		const lists = (resource: string) =>
			mine.filter((r) => r.verb === 'list' && r.resource === resource).length;
		expect(lists('pods')).toBe(1);
		expect(lists('persistentvolumeclaims')).toBe(1);
		expect(lists('leases')).toBeGreaterThanOrEqual(2);
		expect(lists('leases')).toBeLessThanOrEqual(c.kind === 'real' ? ids.length / 2 : 5);
		expect(mine.filter((r) => r.verb === 'get' && r.resource === 'configmaps').length).toBe(1);
		// Every Lease create won: none was lost to a claim of the same process.
		const creates = (await c.ctpoolMutations(mark)).filter(
			(m) => m.verb === 'create' && m.resource === 'leases',
		);
		expect(creates.map((m) => m.code)).toEqual(ids.map(() => 201));
		// A second claim of an identity that just won finds its member (it reads again).
		const again = await claim(ctx, 'broker', 'b7@example.com');
		expect(again).toMatchObject({ member: results[7]?.member, existing: true });
		// Nothing free in the shared read: the 31st claim reads again before saying so.
		const err = await poolError(claim(ctx, 'broker', 'late@example.com'));
		expect(err.message).toBe('pool has no free members (desired 30, claimed 30, unschedulable 0)');
	});

	it('a second claim by the same identity returns the same member', async () => {
		const ctx = c.context();
		await apply(ctx, 'same', poolSpec({ size: 3 }));
		await waitReady(ctx, 'same', 3);
		const first = await claim(ctx, 'same', 'erin@example.com');
		const mark = c.mark();
		const second = await claim(ctx, 'same', 'erin@example.com');
		expect(second).toEqual({
			member: first.member,
			renewed: false,
			existing: true,
			started: false,
		});
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});

	it('prefers Ready members, then Starting, then Stopped, lowest index first', async () => {
		const ctx = c.context();
		await apply(ctx, 'order', poolSpec({ size: 3 }));
		await waitReady(ctx, 'order', 3);
		await c.api.delete('pods', 'order-1', { gracePeriodSeconds: 0 });
		const first = await claim(ctx, 'order', 'f1@example.com');
		expect(first.member).toBe('order-2');
		const second = await claim(ctx, 'order', 'f2@example.com');
		expect(second.member).toBe('order-3');
		// The Stopped member comes last, and its pod is started for the claim.
		const third = await claim(ctx, 'order', 'f3@example.com');
		expect(third).toMatchObject({ member: 'order-1', started: true });
		expect(await c.api.get('pods', 'order-1')).toBeDefined();
	});

	it('an expired claim is renewed by its holder and given to nobody else', async () => {
		const ctx = c.context();
		await apply(ctx, 'exp', poolSpec({ size: 2 }));
		await waitReady(ctx, 'exp', 2);
		const { member } = await claim(ctx, 'exp', 'gus@example.com');
		const later = Date.now() + 2 * 3600_000;
		const future = c.context({ now: () => later });
		// Another identity does not get the expired member.
		const other = await claim(future, 'exp', 'hal@example.com');
		expect(other.member).not.toBe(member);
		const err = await poolError(claim(future, 'exp', 'ivy@example.com'));
		expect(err.message).toBe('pool has no free members (desired 2, claimed 2, unschedulable 0)');
		// The holder renews it with a CAS update: renewTime moves to now.
		const renewed = await claim(future, 'exp', 'gus@example.com');
		expect(renewed).toEqual({ member, renewed: true, existing: true, started: false });
		const lease = (await c.api.get('leases', `corral-vdi-ct-${member}`)) as unknown as {
			spec: { holderIdentity: string; renewTime: string; acquireTime: string };
		};
		expect(lease.spec.holderIdentity).toBe('gus@example.com');
		expect(Date.parse(lease.spec.renewTime)).toBe(later);
		expect(lease.spec.renewTime).toMatch(/\.\d{6}Z$/);
		expect(Date.parse(lease.spec.acquireTime)).toBeLessThan(later);
		// The reconciler still leaves it alone, expired or not.
		const r = await reconcile(future, 'exp');
		expect(r.actions).toEqual([]);
	});

	it('refuses the reserved identity, an empty one and control characters, with zero mutations', async () => {
		const ctx = c.context();
		await apply(ctx, 'ident', poolSpec({ size: 1 }));
		const mark = c.mark();
		const reserved = await poolError(claim(ctx, 'ident', 'corral-vdi/reconciler'));
		expect(reserved.kind).toBe('reserved-identity');
		expect(reserved.message).toContain('reserved for the reconciler');
		expect((await poolError(claim(ctx, 'ident', ''))).kind).toBe('usage');
		expect((await poolError(claim(ctx, 'ident', 'bob\u001b[31m'))).message).toContain(
			'control characters',
		);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(await c.ctpoolRequests(mark)).toBe(0);
	});

	it('does not give a member a reconciler is working on', async () => {
		const ctx = c.context();
		await apply(ctx, 'busy', poolSpec({ size: 1 }));
		await waitReady(ctx, 'busy', 1);
		await putLease(c, 'busy', 'busy-1', 'corral-vdi/reconciler', Date.now(), 600);
		const err = await poolError(claim(ctx, 'busy', 'jo@example.com'));
		expect(err.kind).toBe('no-free');
	});
});
