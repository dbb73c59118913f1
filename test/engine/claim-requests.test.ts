/**
 * The requests of a claim (issue 27): a one-shot claim lists each kind once and finds an
 * earlier claim of its identity by a label selector, not by a list of every Lease; a claim of a
 * long-running engine answers from its watch-fed cache, with nothing read before the Lease
 * create and one write (the PVC's display copy) beside the Event after it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	apply,
	type ClaimFeed,
	claim,
	claimFromFeed,
	createEngine,
	poolWatchFeed,
	poolWatchFeeds,
	watchPoolFeed,
	watchPoolForClaims,
} from '../../source/engine/index.js';
import type { Kube } from '../../source/kube/config.js';
import { startPoolWatch } from '../../source/kube/pool-watch.js';
import { HOLDER_LABEL, holderLabelValue } from '../../source/pool/lease.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { type CtpoolRequest, ctpoolRequestList, waitReady } from './fixtures.js';

/** A second namespace, for the console's watch of every namespace (-A). */
const SECOND_NAMESPACE = 'claim-requests-b';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [SECOND_NAMESPACE] });
});
afterAll(() => c?.close());

/** A gate: opened by open() (again: no effect). */
function gate(): { opened: Promise<void>; open(): void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { opened, open };
}

/** target with its method run after before(args) resolves (a gate, a count), as the client's own. */
function gatedMethod<T extends object>(
	target: T,
	method: string,
	run: (args: unknown[]) => unknown,
): T {
	return new Proxy(target, {
		get(t, prop, receiver) {
			const value = Reflect.get(t, prop, receiver);
			if (prop !== method || typeof value !== 'function') return value;
			return async (...args: unknown[]) => {
				await run(args);
				return value.apply(t, args);
			};
		},
	});
}

/** The kube with some of its API groups replaced. */
function withApis(kube: Kube, apis: Partial<Pick<Kube, 'core' | 'coordination'>>): Kube {
	return new Proxy(kube, {
		get: (target, prop, receiver) =>
			prop in apis ? apis[prop as keyof typeof apis] : Reflect.get(target, prop, receiver),
	});
}

/** The requests of each verb and resource, as `verb resource` -> count. */
function tally(requests: readonly CtpoolRequest[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const r of requests) {
		const key = `${r.verb} ${r.resource}`;
		out[key] = (out[key] ?? 0) + 1;
	}
	return out;
}

describe('the requests of a claim', () => {
	it('a one-shot claim lists each kind once, writes the PVC without reading it, and labels its Lease with the holder', async () => {
		const setup = c.context();
		await apply(setup, 'once', poolSpec({ size: 3 }));
		await waitReady(setup, 'once', 3);
		const ctx = c.context();
		const mark = c.mark();
		const result = await claim(ctx, 'once', 'ann@example.com');
		expect(result).toMatchObject({ existing: false, renewed: false });
		const counts = tally(await ctpoolRequestList(c, mark));
		expect(counts['get configmaps']).toBe(1);
		expect(counts['list pods']).toBe(1);
		expect(counts['list persistentvolumeclaims']).toBe(1);
		// the snapshot's list, and the identity's own Leases by their holder label
		expect(counts['list leases']).toBe(2);
		expect(counts['create leases']).toBe(1);
		// the PVC is patched at the resourceVersion of the list: no read of it
		expect(counts['get persistentvolumeclaims'] ?? 0).toBe(0);
		expect(counts['patch persistentvolumeclaims']).toBe(1);
		const total = Object.values(counts).reduce((a, b) => a + b, 0);
		// the above, the Event, and at most the SelfSubjectReview (asked once per process)
		expect(total).toBeLessThanOrEqual(9);
		const lease = await c.api.get('leases', `corral-vdi-ct-${result.member}`);
		expect(lease?.metadata.labels?.[HOLDER_LABEL]).toBe(holderLabelValue('ann@example.com'));
		expect(
			(await c.api.get('persistentvolumeclaims', `${result.member}-data`))?.metadata.annotations?.[
				'corral.dev/vdi-assigned-to'
			],
		).toBe('ann@example.com');
	});

	it("a long-running engine's claims answer from its watch-fed cache: nothing read before the Lease create", async () => {
		const setup = c.context();
		await apply(setup, 'kept', poolSpec({ size: 4 }));
		await waitReady(setup, 'kept', 4);
		const engine = createEngine(c.kube, { namespace: setup.namespace, actor: 'broker' });
		const cache = watchPoolForClaims(engine.ctx, 'kept');
		try {
			await cache.ready;
			await expect.poll(() => cache.synced()).toBe(true);
			// the process has asked who it is (once per process) before the mark
			const warm = c.mark();
			await engine.claim('kept', 'warm@example.com');
			// its Event is written after its answer: before the mark
			await waitFor(async () => tally(await ctpoolRequestList(c, warm))['create events'] === 1, {
				what: "the warm claim's Event",
			});
			const mark = c.mark();
			const results = await Promise.all(
				['a@example.com', 'b@example.com'].map((id) => engine.claim('kept', id)),
			);
			expect(new Set(results.map((r) => r.member)).size).toBe(2);
			// per claim: the Lease create, then the PVC's display copy and the Event (both written
			// after the answer: a long-running engine's claim waits for neither); no read at all
			await engine.flush();
			const counts = tally((await ctpoolRequestList(c, mark)).filter((r) => r.verb !== 'watch'));
			expect(counts).toEqual({
				'create leases': 2,
				'patch persistentvolumeclaims': 2,
				'create events': 2,
			});
			// the same identity again: its own member, found in the cache
			const again = await engine.claim('kept', 'a@example.com');
			expect(again).toMatchObject({ member: results[0]?.member, existing: true });
		} finally {
			cache.stop();
		}
		expect(engine.ctx.caches.claimCaches.size).toBe(0);
	});

	it("a claim from the watch-fed cache answers before its PVC's display copy is written, which follows", async () => {
		const setup = c.context();
		await apply(setup, 'first', poolSpec({ size: 2 }));
		await waitReady(setup, 'first', 2);
		// every PVC patch of this engine waits until the gate opens
		const patches = gate();
		let held = 0;
		const kube = withApis(c.kube, {
			core: gatedMethod(c.kube.core, 'patchNamespacedPersistentVolumeClaim', () => {
				held++;
				return patches.opened;
			}),
		});
		const engine = createEngine(kube, { namespace: setup.namespace, actor: 'broker' });
		const cache = watchPoolForClaims(engine.ctx, 'first');
		try {
			await cache.ready;
			await expect.poll(() => cache.synced()).toBe(true);
			// answers while its display copy is held (the old path waited for it: this never resolved)
			const result = await engine.claim('first', 'fast@example.com');
			expect(result).toMatchObject({ member: 'first-1', existing: false });
			await expect.poll(() => held).toBe(1);
			const annotation = async () =>
				(await c.api.get('persistentvolumeclaims', 'first-1-data', setup.namespace))?.metadata
					.annotations?.['corral.dev/vdi-assigned-to'];
			expect(await annotation()).toBeUndefined();
			patches.open();
			await waitFor(async () => (await annotation()) === 'fast@example.com', {
				what: 'the display copy written after the answer',
			});
		} finally {
			patches.open();
			cache.stop();
		}
	});

	it('in a burst, the display copies wait until the claims under way have answered', async () => {
		const setup = c.context();
		await apply(setup, 'burst', poolSpec({ size: 3 }));
		await waitReady(setup, 'burst', 3);
		// b's Lease create waits at a gate; the PVC patches are counted as they are sent
		const creates = gate();
		const patched: string[] = [];
		const kube = withApis(c.kube, {
			core: gatedMethod(c.kube.core, 'patchNamespacedPersistentVolumeClaim', (args) => {
				patched.push(String((args[0] as { name: string }).name));
			}),
			coordination: gatedMethod(c.kube.coordination, 'createNamespacedLease', (args) =>
				(args[0] as { body: { spec: { holderIdentity: string } } }).body.spec.holderIdentity ===
				'b@example.com'
					? creates.opened
					: undefined,
			),
		});
		const engine = createEngine(kube, { namespace: setup.namespace, actor: 'broker' });
		const cache = watchPoolForClaims(engine.ctx, 'burst');
		try {
			await cache.ready;
			await expect.poll(() => cache.synced()).toBe(true);
			const a = engine.claim('burst', 'a@example.com');
			const b = engine.claim('burst', 'b@example.com');
			const first = await a;
			// a has answered; b is still before its answer (its create is held): a's copy waits
			expect(first.member).toBe('burst-1');
			expect(patched).toEqual([]);
			creates.open();
			expect((await b).member).toBe('burst-2');
			await engine.flush();
			expect(patched.sort()).toEqual(['burst-1-data', 'burst-2-data']);
		} finally {
			creates.open();
			cache.stop();
		}
	});

	it("the console's watch of many pools (-A) feeds each pool's claims in its own namespace", async () => {
		const [one, two] = [c.context(), c.context({ namespace: SECOND_NAMESPACE })];
		// the second namespace outlives a run on the real control plane: its claims of a run before go
		for (const l of await c.api.list('leases', {
			namespace: SECOND_NAMESPACE,
			labelSelector: 'corral.dev/vdi-ct-pool=twin',
		}))
			await c.api.delete('leases', l.metadata.name, { namespace: SECOND_NAMESPACE });
		// one pool name in two namespaces: the same member names, told apart by their namespace
		for (const setup of [one, two]) await apply(setup, 'twin', poolSpec({ size: 2 }));
		await apply(one, 'other', poolSpec({ size: 1 }));
		for (const setup of [one, two]) await waitReady(setup, 'twin', 2);
		await waitReady(one, 'other', 1);
		const feeds = poolWatchFeeds();
		const watch = startPoolWatch(c.kube, { batchMs: 10 }, feeds.sink);
		const engine = createEngine(c.kube, { namespace: one.namespace, actor: 'console' });
		const contexts = [one, two].map((s) => engine.context({ namespace: s.namespace }));
		try {
			const caches = contexts.map((ctx) =>
				claimFromFeed(ctx, 'twin', feeds.feed(ctx.namespace, 'twin')),
			);
			await Promise.all(caches.map((k) => k.ready));
			await expect.poll(() => caches.every((k) => k.synced())).toBe(true);
			// each cache holds its own namespace's objects, and no other pool's
			for (const k of caches) {
				const raw = k.raw();
				expect([raw.pods.length, raw.pvcs.length, raw.leases.length]).toEqual([2, 2, 0]);
				expect(k.configMap()).toMatchObject({ metadata: { name: 'corral-vdi-ctpool-twin' } });
			}
			await claim(contexts[0]!, 'twin', 'warm@example.com');
			await engine.flush();
			const mark = c.mark();
			const results = await Promise.all(
				contexts.map((ctx) => claim(ctx, 'twin', 'ann@example.com')),
			);
			await engine.flush();
			// one member in each namespace, from the feed: nothing read before the Lease creates
			expect(results.map((r) => r.member)).toEqual(['twin-2', 'twin-1']);
			const requests = (await ctpoolRequestList(c, mark)).filter(
				(r) => r.verb !== 'watch' && r.resource !== 'events',
			);
			expect(tally(requests)).toEqual({ 'create leases': 2, 'patch persistentvolumeclaims': 2 });
			for (const [i, setup] of [one, two].entries()) {
				const lease = await c.api.get(
					'leases',
					`corral-vdi-ct-${results[i]?.member}`,
					setup.namespace,
				);
				expect(lease?.spec).toMatchObject({ holderIdentity: 'ann@example.com' });
			}
			// a pool's feed first asked for now holds what the watch brought before
			const late = feeds.feed(one.namespace, 'other');
			expect(late.objects().pods).toHaveLength(1);
		} finally {
			for (const ctx of contexts) ctx.caches.claimCaches.get(`${ctx.namespace}/twin`)?.stop();
			watch.stop();
		}
	});

	it('two engines claiming for one identity at once from their caches end on one member', async () => {
		const setup = c.context();
		await apply(setup, 'pair', poolSpec({ size: 6 }));
		await waitReady(setup, 'pair', 6);
		const engines = [0, 1].map(() => createEngine(c.kube, { namespace: setup.namespace }));
		const caches = engines.map((e) => watchPoolForClaims(e.ctx, 'pair'));
		try {
			await Promise.all(caches.map((k) => k.ready));
			await expect.poll(() => caches.every((k) => k.synced())).toBe(true);
			for (const who of ['ann', 'ben', 'cat']) {
				const identity = `${who}@example.com`;
				const [a, b] = await Promise.all(engines.map((e) => e.claim('pair', identity)));
				// both answer with the member of the earlier Lease; the later one was given back
				expect(a?.member).toBe(b?.member);
				const held = (
					await c.api.list('leases', { labelSelector: 'corral.dev/vdi-ct-pool=pair' })
				).filter(
					(l) => (l.spec as { holderIdentity?: string } | undefined)?.holderIdentity === identity,
				);
				expect(held.map((l) => l.metadata.labels?.['corral.dev/vdi-ct-member'])).toEqual([
					a?.member,
				]);
			}
		} finally {
			for (const k of caches) k.stop();
		}
	});

	it("an engine's claims answer from a feed the process hands it (the console's store): no read before the Lease create", async () => {
		const setup = c.context();
		await apply(setup, 'fed', poolSpec({ size: 3 }));
		await waitReady(setup, 'fed', 3);
		// the process's own watches (here: the engine's watch feed), read through a wrapper
		const watches = watchPoolFeed(setup, 'fed');
		let reads = 0;
		const feed: ClaimFeed = {
			ready: watches.ready,
			synced: () => watches.synced(),
			objects: () => {
				reads++;
				return watches.objects();
			},
			onLeases: (listener) => watches.onLeases(listener),
			stop: () => watches.stop?.(),
		};
		const engine = createEngine(c.kube, { namespace: setup.namespace, actor: 'console' });
		const cache = engine.claimFromFeed('fed', feed);
		try {
			await cache.ready;
			await expect.poll(() => cache.synced()).toBe(true);
			await engine.claim('fed', 'warm@example.com');
			await engine.flush();
			const mark = c.mark();
			const result = await engine.claim('fed', 'fed@example.com');
			expect(reads).toBeGreaterThan(0);
			// the display copy and the Event are written after the answer
			await engine.flush();
			const requests = (await ctpoolRequestList(c, mark)).filter(
				(r) => r.verb !== 'watch' && r.resource !== 'events',
			);
			expect(tally(requests)).toEqual({ 'create leases': 1, 'patch persistentvolumeclaims': 1 });
			const lease = await c.api.get('leases', `corral-vdi-ct-${result.member}`);
			expect(lease?.spec).toMatchObject({ holderIdentity: 'fed@example.com' });
		} finally {
			cache.stop();
		}
		expect(engine.ctx.caches.claimCaches.size).toBe(0);
	});

	it("a pool watch's batches (the console's) feed an engine's claims through poolWatchFeed", async () => {
		const setup = c.context();
		await apply(setup, 'teed', poolSpec({ size: 2 }));
		await waitReady(setup, 'teed', 2);
		const { sink, feed } = poolWatchFeed('teed');
		const watch = startPoolWatch(c.kube, { namespace: setup.namespace, pool: 'teed' }, sink);
		const engine = createEngine(c.kube, { namespace: setup.namespace, actor: 'console' });
		const cache = engine.claimFromFeed('teed', feed);
		try {
			await cache.ready;
			await expect.poll(() => cache.synced()).toBe(true);
			await engine.claim('teed', 'warm@example.com');
			await engine.flush();
			const mark = c.mark();
			const result = await engine.claim('teed', 'teed@example.com');
			await engine.flush();
			const requests = (await ctpoolRequestList(c, mark)).filter(
				(r) => r.verb !== 'watch' && r.resource !== 'events',
			);
			expect(tally(requests)).toEqual({ 'create leases': 1, 'patch persistentvolumeclaims': 1 });
			// the pool is full now: the no-free from the feed is confirmed by a read of the API
			await expect(engine.claim('teed', 'late@example.com')).rejects.toMatchObject({
				kind: 'no-free',
			});
			expect(result.member).toMatch(/^teed-[12]$/);
		} finally {
			cache.stop();
			watch.stop();
		}
	});
});
