/**
 * ctpool_claims_refused_total of the reconciler: counted from the ClaimRefused Events other
 * clients write, from 0 when the process starts; absent, without holding /readyz back, when
 * the identity may not read Events.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetricsServer, startMetricsServer } from '../../source/controller/metrics-server.js';
import { poolKey } from '../../source/controller/pool-cache.js';
import {
	type PoolController,
	startPoolController,
} from '../../source/controller/pool-controller.js';
import { RefusalTally } from '../../source/controller/refusal-watch.js';
import { apply } from '../../source/engine/apply.js';
import { claim } from '../../source/engine/claim.js';
import { createEngine } from '../../source/engine/engine.js';
import { loadKube } from '../../source/kube/config.js';
import type { KubeObject } from '../../source/kube/objects.js';
import { AUDIT_ANNOTATION, AUDIT_POOL_LABEL } from '../../source/pool/audit.js';
import { PoolError } from '../../source/pool/errors.js';
import { roleRules } from '../../source/pool/permissions.js';
import { waitReady } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(async () => {
	for (const stop of stops.reverse()) await stop();
	await c?.close();
});

/** The refused-claims sample of a pool in the Prometheus text, or undefined when absent. */
function refusedSample(text: string, pool: string): number | undefined {
	const m = new RegExp(
		`^ctpool_claims_refused_total\\{namespace="${c.ns}",pool="${pool}"\\} (\\S+)$`,
		'm',
	).exec(text);
	return m ? Number(m[1]) : undefined;
}

/** A reconciler of the test namespace counting refusals, with its metrics server. */
async function reconciler(
	kubeconfig: string,
	unreadable: string[],
): Promise<{ pools: PoolController; server: MetricsServer }> {
	const kube = await loadKube({ kubeconfig });
	const pools = startPoolController({
		kube,
		namespace: c.ns,
		resyncMs: 60_000,
		settleMs: 50,
		engine: createEngine(kube, { actor: 'reconciler', deleteTimeoutMs: 20_000 }),
		countRefusals: true,
		onRefusalsUnreadable: (reason) => unreadable.push(reason),
	});
	const server = await startMetricsServer(
		{ host: '127.0.0.1', port: 0 },
		pools.metrics.registry,
		pools.notReady,
	);
	stops.push(
		() => pools.stop(),
		() => server.close(),
	);
	return { pools, server };
}

async function scrape(server: MetricsServer, path = '/metrics') {
	const res = await fetch(`${server.url}${path}`);
	return { status: res.status, text: await res.text() };
}

/** A claim that must be refused: the pool has no free member. */
async function refusedClaim(pool: string, identity: string): Promise<void> {
	const other = c.context({ actor: 'broker' });
	const err = await claim(other, pool, identity).catch((e: unknown) => e);
	expect(err).toBeInstanceOf(PoolError);
	expect((err as PoolError).kind).toBe('no-free');
}

describe('ctpool_claims_refused_total', { timeout: 120_000 }, () => {
	it('counts claims refused by another engine from when the reconciler starts', async () => {
		const admin = c.context();
		expect((await apply(admin, 'full', poolSpec({ size: 1 }))).errors).toEqual([]);
		await waitReady(admin, 'full', 1);
		await claim(admin, 'full', 'alice@example.com');
		// refused before the reconciler starts: listed at start, not counted
		await refusedClaim('full', 'bob@example.com');
		await waitFor(
			async () =>
				(await c.api.list('events')).some(
					(e) => (e as { reason?: string }).reason === 'ClaimRefused',
				),
			{ what: 'the first ClaimRefused Event' },
		);

		const unreadable: string[] = [];
		const { server } = await reconciler(c.kubeconfigPath, unreadable);
		await waitFor(async () => refusedSample((await scrape(server)).text, 'full') === 0, {
			what: 'the counter at 0 for the pool once the Events are listed',
		});

		await refusedClaim('full', 'carol@example.com');
		const text = await waitFor(
			async () => {
				const { text } = await scrape(server);
				return refusedSample(text, 'full') === 1 ? text : undefined;
			},
			{ what: 'the refusal counted in /metrics' },
		);
		expect(text).toContain(`ctpool_claims_refused_total{namespace="${c.ns}",pool="full"} 1`);
		expect(text).toMatch(/^ctpool_watch_synced\{kind="events"\} 1$/m);
		expect(unreadable).toEqual([]);
	});

	it('stays absent, and /readyz does not wait for it, when Events cannot be read', async () => {
		const rules = roleRules({ events: false }).flatMap((p) => p.rules);
		const unreadable: string[] = [];
		const { server } = await reconciler(await c.grant('no-events', rules), unreadable);
		await waitFor(async () => (await scrape(server, '/readyz')).status === 200, {
			what: '/readyz ready without the Events watch',
		});
		await waitFor(() => unreadable.length > 0, { what: 'the Events denial told' });
		expect(unreadable).toHaveLength(1);
		expect(unreadable[0]).toMatch(/forbidden/i);
		await refusedClaim('full', 'dave@example.com');
		await waitFor(
			async () =>
				(await c.api.list('events')).some((e) => JSON.stringify(e).includes('dave@example.com')),
			{ what: "dave's ClaimRefused Event" },
		);
		const { text } = await scrape(server);
		expect(text).toContain(`ctpool_pool_desired{namespace="${c.ns}",pool="full"} 1`);
		expect(refusedSample(text, 'full')).toBeUndefined();
	});
});

describe('the refusal tally', () => {
	const event = (name: string, count: number, action = 'claim-refused'): KubeObject =>
		({
			apiVersion: 'v1',
			kind: 'Event',
			metadata: {
				name,
				namespace: 'corral',
				labels: { [AUDIT_POOL_LABEL]: 'desk' },
				annotations: {
					[AUDIT_ANNOTATION]: JSON.stringify({ action, pool: 'desk', actor: 'x', count }),
				},
			},
			reason: 'ClaimRefused',
		}) as KubeObject;

	it('counts new Events and rises of a count, not the first list, relists or other actions', () => {
		const got: Array<[string, number]> = [];
		const tally = new RefusalTally({ refused: (key, n) => got.push([key, n]) }, 'corral');
		tally.reset([event('a', 3)]);
		expect(got).toEqual([]);
		tally.upsert(event('b', 2));
		tally.upsert(event('b', 5));
		tally.upsert(event('c', 1, 'claim'));
		// a relist after a lost watch: a seen count is not counted again, a missed Event is
		tally.reset([event('a', 3), event('b', 5), event('d', 1)]);
		tally.delete(event('a', 3));
		tally.upsert(event('a', 1));
		const key = poolKey('corral', 'desk');
		expect(got).toEqual([
			[key, 2],
			[key, 3],
			[key, 1],
			[key, 1],
		]);
	});
});
