/**
 * The race that reverted the first claim path of issue 27 (7b289dc), replayed step by step:
 * the property of claim-concurrency.test.ts (seed -1541586482) found one identity answered
 * both "no free members" and a member among concurrent claims in one process.
 *
 * How it went: an identity's second claim started from the engine's shared read of the pool,
 * made by another claim (a read again) before the first claim's Lease was created; not seeing
 * its own member there, it won a free member, then its check for an earlier claim gave that
 * member back. Meanwhile another identity lost the Lease create of that member to it and
 * answered "no free members"; its next claim got the member given back.
 *
 * The second test replays the other half of that race, the one an engine cannot prevent
 * (the identity's duplicate Lease comes from a claim through another engine): a claim of
 * another identity that lost a Lease create to it tries the member again once it is given
 * back, instead of answering "no free members".
 *
 * The requests are held at gates in a wrapper of the engine's Kube, so that the steps come in
 * exactly this order on both clusters.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, type ClaimResult, claim } from '../../source/engine/index.js';
import type { Kube } from '../../source/kube/config.js';
import { PoolError } from '../../source/pool/errors.js';
import { holderLabelValue } from '../../source/pool/lease.js';
import { startTestCluster, type TestCluster, testContext } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** A request held until opened: `reached` resolves when the request comes. */
interface Gate {
	reached: Promise<void>;
	open(): void;
}

/** A wrapper of a Kube that holds the requests gates match, and logs the Lease creates. */
function gatedKube(kube: Kube) {
	const gates: Array<{ match: (what: string) => boolean; reach(): void; opened: Promise<void> }> =
		[];
	const creates: string[] = [];
	const watchers: Array<{ match: (what: string) => boolean; done(): void }> = [];
	const answered = (what: string) => {
		for (const w of watchers.filter((x) => x.match(what))) {
			watchers.splice(watchers.indexOf(w), 1);
			w.done();
		}
	};
	const pass = async (what: string) => {
		const i = gates.findIndex((g) => g.match(what));
		if (i < 0) return;
		const [gate] = gates.splice(i, 1);
		gate!.reach();
		await gate!.opened;
	};
	const coordination = new Proxy(kube.coordination, {
		get(target, prop, receiver) {
			const value = Reflect.get(target, prop, receiver);
			if (prop !== 'createNamespacedLease' || typeof value !== 'function') return value;
			return async (args: {
				body: { metadata: { name: string }; spec: { holderIdentity: string } };
			}) => {
				const what = `create ${args.body.metadata.name} for ${args.body.spec.holderIdentity}`;
				creates.push(what);
				await pass(what);
				try {
					return await value.call(target, args);
				} finally {
					answered(what);
				}
			};
		},
	});
	const wrapped = new Proxy(kube, {
		get(target, prop, receiver) {
			if (prop === 'coordination') return coordination;
			if (prop === 'readJson')
				return async (path: string, query?: Record<string, string>, signal?: AbortSignal) => {
					await pass(`list ${path.split('/').pop()} ${query?.labelSelector ?? ''}`);
					return target.readJson(path, query, signal);
				};
			return Reflect.get(target, prop, receiver);
		},
	}) as Kube;
	return {
		kube: wrapped,
		creates,
		/** Resolves once the next Lease create a description matches has been answered (a macrotask later). */
		answered(match: (what: string) => boolean): Promise<void> {
			return new Promise<void>((resolve) => {
				watchers.push({ match, done: () => setImmediate(resolve) });
			});
		},
		/** Holds the next request whose description (`create <lease> for <holder>`, `list <kind> <selector>`) matches. */
		hold(match: (what: string) => boolean): Gate {
			let reach = () => {};
			let open = () => {};
			const reached = new Promise<void>((resolve) => {
				reach = resolve;
			});
			const opened = new Promise<void>((resolve) => {
				open = resolve;
			});
			gates.push({ match, reach, opened });
			return { reached, open };
		},
	};
}

/** A claim's answer: the member, or 'no-free'. */
function answer(p: Promise<ClaimResult>): Promise<string> {
	return p.then(
		(r) => r.member,
		(err: unknown) => {
			if (err instanceof PoolError && err.kind === 'no-free') return 'no-free';
			throw err;
		},
	);
}

/** Waits until Date.now() has moved past t (the old path's staleness test read milliseconds). */
async function clockPast(t: number): Promise<void> {
	await waitFor(() => Date.now() > t, { what: 'the clock to tick', intervalMs: 1 });
}

describe('concurrent claims in one process: the race of 7b289dc', () => {
	it('a second claim of an identity never wins a second member from a read that began before its first Lease, so no other identity loses a member to it', async () => {
		const pool = 'race';
		const setup = c.context();
		await apply(setup, pool, poolSpec({ size: 3 }));
		await waitReady(setup, pool, 3);
		const gated = gatedKube(c.kube);
		const ctx = testContext(gated.kube);
		const id = (n: string) => `${n}@example.com`;
		const create = (member: number, who: string) => (s: string) =>
			s === `create corral-vdi-ct-race-${member} for ${id(who)}`;

		// 1. b, e and c claim at once from one read: b takes race-1, e race-2, c race-3 (each
		// create held).
		const bCreate = gated.hold(create(1, 'b'));
		const eCreate = gated.hold(create(2, 'e'));
		const cCreate = gated.hold(create(3, 'c'));
		const t0 = Date.now();
		const b1 = answer(claim(ctx, pool, id('b')));
		const e1 = answer(claim(ctx, pool, id('e')));
		const c1 = answer(claim(ctx, pool, id('c')));
		await Promise.all([bCreate.reached, eCreate.reached, cCreate.reached]);
		// 2. g finds nothing free in that read, which began before its claim: it reads again (no
		// Lease created yet) and tries race-1 (held).
		await clockPast(t0);
		const gCreate = gated.hold(create(1, 'g'));
		const g1 = answer(claim(ctx, pool, id('g')));
		await gCreate.reached;
		// 3. b's Lease is created: b has race-1.
		bCreate.open();
		expect(await b1).toBe('race-1');
		// 4. g loses race-1 and wins race-2 or race-3 (at random: its creates pass the gates).
		gCreate.open();
		const gMember = await g1;
		expect(['race-2', 'race-3']).toContain(gMember);
		const free = gMember === 'race-2' ? 3 : 2;
		const loser = gMember === 'race-2' ? 'e' : 'c';
		const owner = loser === 'e' ? 'c' : 'e';
		// 5. b claims again. Before the fix it started from g's read (which did not show b's
		// Lease), won race-<free>, and its check for an earlier claim (held here) was about to
		// give it back.
		const bCheck = gated.hold(
			(s) => s.startsWith('list leases') && s.includes(holderLabelValue(id('b'))),
		);
		const b2 = answer(claim(ctx, pool, id('b')));
		const first = await Promise.race([
			b2.then(() => 'answered'),
			bCheck.reached.then(() => 'held'),
		]);
		// (fixed: b answers with its own member and no check; the gate lets any list pass)
		if (first === 'answered') bCheck.open();
		// 6. The owner's held create of race-<free> goes on: it is the owner's (before the fix it
		// lost to b's second Lease and answered "no free members").
		(owner === 'e' ? eCreate : cCreate).open();
		expect(await (owner === 'e' ? e1 : c1)).toBe(`race-${free}`);
		bCheck.open();
		expect(await b2).toBe('race-1');
		// 7. The loser's create goes on: g has that member, nothing else is free.
		(loser === 'e' ? eCreate : cCreate).open();
		expect(await (loser === 'e' ? e1 : c1)).toBe('no-free');
		// 8. Everyone again: the same answers.
		expect(await answer(claim(ctx, pool, id(owner)))).toBe(`race-${free}`);
		expect(await answer(claim(ctx, pool, id(loser)))).toBe('no-free');
		expect(await answer(claim(ctx, pool, id('b')))).toBe('race-1');
		// b made one Lease only: its second claim found race-1 as its own.
		expect(gated.creates.filter((s) => s.endsWith(`for ${id('b')}`))).toEqual([
			`create corral-vdi-ct-race-1 for ${id('b')}`,
		]);
		const holders = new Map(
			(await c.api.list('leases', { labelSelector: `corral.dev/vdi-ct-pool=${pool}` })).map((l) => [
				l.metadata.labels?.['corral.dev/vdi-ct-member'],
				(l.spec as { holderIdentity?: string }).holderIdentity,
			]),
		);
		expect(holders).toEqual(
			new Map([
				['race-1', id('b')],
				[gMember, id('g')],
				[`race-${free}`, id(owner)],
			]),
		);
	});

	it('a claim that loses a Lease create to a claim of its engine still settling tries the member again when that claim gives it back', async () => {
		// x claims through two engines at once (two terminals): engine B's claim wins a second
		// member, race-2, and gives it back; y, through B, loses race-2's create to it meanwhile.
		const pool = 'sib';
		const setup = c.context();
		await apply(setup, pool, poolSpec({ size: 2 }));
		await waitReady(setup, pool, 2);
		const gated = gatedKube(c.kube);
		const b = testContext(gated.kube);
		const [x, y] = ['x@example.com', 'y@example.com'];
		const create = (member: number, who: string) => (s: string) =>
			s === `create corral-vdi-ct-sib-${member} for ${who}`;
		// 1. x through B: B reads the pool (all free), x tries sib-1 (held).
		const xFirst = gated.hold(create(1, x));
		const xB = answer(claim(b, pool, x));
		await xFirst.reached;
		// 2. x through another engine: sib-1.
		expect(await answer(claim(c.context(), pool, x))).toBe('sib-1');
		// 3. B's x loses sib-1 and tries sib-2 (held).
		const xSecond = gated.hold(create(2, x));
		xFirst.open();
		await xSecond.reached;
		// 4. y through B: nothing free in B's read, read again (sib-2 free), tries sib-2 (held).
		const yCreate = gated.hold(create(2, y));
		const yB = answer(claim(b, pool, y));
		await yCreate.reached;
		// 5. B's x wins sib-2; its check for an earlier claim of x is held.
		const xCheck = gated.hold(
			(s) => s.startsWith('list leases') && s.includes(holderLabelValue(x)),
		);
		xSecond.open();
		await xCheck.reached;
		// 6. y's create of sib-2 is lost to x's; only then does x's check go on and give sib-2 back.
		const yLost = gated.answered(create(2, y));
		yCreate.open();
		await yLost;
		xCheck.open();
		expect(await xB).toBe('sib-1');
		// y tried sib-2 again once it was given back (before: "no free members")
		expect(await yB).toBe('sib-2');
		expect(gated.creates.filter((s) => create(2, y)(s))).toHaveLength(2);
	});

	it('a claim that finds nothing free while a claim of its engine is about to give a member back waits for it and reads again', async () => {
		// As above, but y reads the pool while x's second Lease (through B) is there: its read
		// shows no member free, and one is about to be given back.
		const pool = 'sob';
		const setup = c.context();
		await apply(setup, pool, poolSpec({ size: 2 }));
		await waitReady(setup, pool, 2);
		const gated = gatedKube(c.kube);
		const b = testContext(gated.kube);
		const [x, y] = ['x@example.com', 'y@example.com'];
		const xFirst = gated.hold((s) => s === `create corral-vdi-ct-sob-1 for ${x}`);
		const xB = answer(claim(b, pool, x));
		await xFirst.reached;
		expect(await answer(claim(c.context(), pool, x))).toBe('sob-1');
		const xCheck = gated.hold(
			(s) => s.startsWith('list leases') && s.includes(holderLabelValue(x)),
		);
		xFirst.open();
		// B's x lost sob-1, won sob-2; its check for an earlier claim of x is held
		await xCheck.reached;
		// y reads the pool anew (B's shared read is dropped): sob-1 and sob-2 both held by x
		b.caches.claimReads.clear();
		const yB = answer(claim(b, pool, y));
		await waitFor(() =>
			b.events.some((e) => e.action === 'claim' && e.outcome === 'start' && e.message.includes(y)),
		);
		await new Promise<void>((resolve) => setImmediate(resolve));
		xCheck.open();
		expect(await xB).toBe('sob-1');
		// (before: "no free members", decided before x gave sob-2 back)
		expect(await yB).toBe('sob-2');
	});
});
