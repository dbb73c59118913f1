/**
 * createEngine: an engine owns its caches. The concurrent claims of one engine share one read
 * of the pool; two engines share nothing (reads, claims in flight, the note that Events are
 * denied); contexts derived from an engine share its caches; a change through the engine drops
 * its shared read so the next claim sees it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, deriveContext, type EngineEvent } from '../../source/engine/index.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { RealAudit, realReady } from '../support/real-cluster.js';
import { waitFor } from '../support/wait.js';
import { kubeWithoutEvents } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** How many times ctpool listed pods after a mark (one per read of a pool; one test at a time). */
async function podLists(mark: number): Promise<number> {
	if (c.kind === 'sim')
		return c.sim.audit
			.since(mark)
			.requests.filter((r) => r.who === 'ctpool' && r.verb === 'list' && r.resource === 'pods')
			.length;
	// the apiserver's audit log: a list is a GET of the collection (a watch has its own verb)
	const audit = new RealAudit((await realReady()).auditLog, c.ns);
	return (await audit.ctpoolRequests(mark)).filter(
		(l) => l.verb === 'list' && l.objectRef?.resource === 'pods' && !l.objectRef.subresource,
	).length;
}

async function readyPool(pool: string, size: number): Promise<void> {
	const admin = createEngine(c.kube, { actor: 'test-admin', deleteTimeoutMs: 20_000 });
	await admin.apply(pool, poolSpec({ size }));
	await waitFor(
		async () =>
			(await admin.readPool(pool)).members.filter((m) => m.state === 'Ready').length === size,
		`${size} Ready members of ${pool}`,
	);
}

describe('createEngine', () => {
	it("shares one read of the pool among one engine's concurrent claims", async () => {
		await readyPool('shared', 4);
		const engine = createEngine(c.kube, { actor: 'broker' });
		const mark = c.mark();
		const won = await Promise.all(
			['a', 'b', 'c', 'd'].map((u) => engine.claim('shared', `${u}@example.com`)),
		);
		expect(new Set(won.map((r) => r.member)).size).toBe(4);
		expect(await podLists(mark)).toBe(1);
	});

	it('gives two engines reads of their own', async () => {
		await readyPool('apart', 4);
		const one = createEngine(c.kube, { actor: 'broker-1' });
		const two = createEngine(c.kube, { actor: 'broker-2' });
		expect(one.ctx.caches).not.toBe(two.ctx.caches);
		const mark = c.mark();
		const won = await Promise.all([
			one.claim('apart', 'a@example.com'),
			two.claim('apart', 'b@example.com'),
		]);
		expect(new Set(won.map((r) => r.member)).size).toBe(2);
		expect(await podLists(mark)).toBe(2);
	});

	it('shares the caches with every context and engine derived from it', async () => {
		const engine = createEngine(c.kube, { actor: 'console' });
		const events: EngineEvent[] = [];
		const derived = [
			engine.context({ emit: (e) => events.push(e) }),
			engine.withActor('other').ctx,
			engine.inNamespace('elsewhere').ctx,
			deriveContext(engine.ctx, { concurrency: 2 }),
		];
		for (const ctx of derived) {
			expect(ctx.caches).toBe(engine.ctx.caches);
			expect(ctx.now).toBe(engine.ctx.now);
		}
		expect(engine.withActor('other').ctx.actor).toBe('other');
		expect(engine.inNamespace('elsewhere').ctx.namespace).toBe('elsewhere');
		// the clock and the connection are the engine's: a derived context cannot swap them
		const clock = () => 0;
		const kept = deriveContext(engine.ctx, { now: clock } as never);
		expect(kept.now).toBe(engine.ctx.now);
	});

	it('drops its shared read when it changes the pool: the next claim sees the change', async () => {
		await readyPool('resize', 1);
		const engine = createEngine(c.kube, { actor: 'admin', deleteTimeoutMs: 20_000 });
		const first = await engine.claim('resize', 'a@example.com');
		expect(first.member).toBe('resize-1');
		const key = `${engine.ctx.namespace}/resize`;
		expect(engine.ctx.caches.claimReads.has(key)).toBe(true);
		// within the reuse window the read would be handed on; apply drops it
		await engine.apply('resize', poolSpec({ size: 2 }));
		expect(engine.ctx.caches.claimReads.has(key)).toBe(false);
		const second = await engine.claim('resize', 'b@example.com');
		expect(second.member).toBe('resize-2');
		// so do a release and a maintenance change, done or failed
		for (const change of [
			() => engine.release('resize', 'resize-1', 'a@example.com'),
			() => engine.setMaintenance('resize', 'resize-9', true),
		]) {
			await engine.claim('resize', 'c@example.com').catch(() => {});
			expect(engine.ctx.caches.claimReads.has(key)).toBe(true);
			await change().catch(() => {});
			expect(engine.ctx.caches.claimReads.has(key)).toBe(false);
		}
	});

	it('says once per engine that Events are denied', async () => {
		await readyPool('quiet', 2);
		const noEvents = await kubeWithoutEvents(c, 'quiet-events');
		const notes = (events: EngineEvent[]) => events.filter((e) => e.action === 'events').length;
		const firstEvents: EngineEvent[] = [];
		const first = createEngine(noEvents, { emit: (e) => firstEvents.push(e) });
		await first.claim('quiet', 'a@example.com');
		await first.withActor('again').claim('quiet', 'b@example.com');
		expect(notes(firstEvents)).toBe(1);
		const secondEvents: EngineEvent[] = [];
		const second = createEngine(noEvents, { emit: (e) => secondEvents.push(e) });
		await second.release(
			'quiet',
			(await second.readPool('quiet')).members[0]!.name,
			'a@example.com',
			{ force: true },
		);
		expect(notes(secondEvents)).toBe(1);
	});
});
