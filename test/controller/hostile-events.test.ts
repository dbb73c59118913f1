/**
 * Hostile Events against the reconciler (issue 22, findings 1 and 7): an audit annotation
 * whose count is 1e309 (Infinity once parsed) must not end the process, and forged
 * ClaimRefused Events naming pools that do not exist must not add metric series.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetricsServer, startMetricsServer } from '../../source/controller/metrics-server.js';
import {
	type PoolController,
	startPoolController,
} from '../../source/controller/pool-controller.js';
import { apply } from '../../source/engine/apply.js';
import { readAudit } from '../../source/engine/audit.js';
import { createEngine } from '../../source/engine/engine.js';
import { loadKube } from '../../source/kube/config.js';
import { setHandlerErrorSink } from '../../source/kube/handler-errors.js';
import { startResilientWatch } from '../../source/kube/resilient-watch.js';
import { AUDIT_ANNOTATION, AUDIT_POOL_LABEL } from '../../source/pool/audit.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const stops: Array<() => Promise<void>> = [];
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

beforeAll(async () => {
	c = await startTestCluster();
	// vitest reports an uncaught error as a failure of the run; count them here instead
	process.on('uncaughtException', onUncaught);
});
afterAll(async () => {
	process.off('uncaughtException', onUncaught);
	for (const stop of stops.reverse()) await stop();
	await c?.close();
});

async function reconciler(): Promise<{ pools: PoolController; server: MetricsServer }> {
	const kube = await loadKube({ kubeconfig: c.kubeconfigPath });
	const pools = startPoolController({
		kube,
		namespace: c.ns,
		resyncMs: 60_000,
		settleMs: 50,
		engine: createEngine(kube, { actor: 'reconciler', deleteTimeoutMs: 20_000 }),
		countRefusals: true,
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

async function scrape(server: MetricsServer): Promise<string> {
	return (await fetch(`${server.url}/metrics`)).text();
}

/** A ClaimRefused Event as anyone with `events create` can write it; `record` is raw JSON. */
function forged(name: string, pool: string, record: string): KubeObject {
	return {
		apiVersion: 'v1',
		kind: 'Event',
		metadata: {
			name,
			namespace: c.ns,
			labels: { [AUDIT_POOL_LABEL]: pool },
			annotations: { [AUDIT_ANNOTATION]: record },
		},
		involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: `vdi-pool-${pool}` },
		reason: 'ClaimRefused',
		type: 'Warning',
		message: 'forged',
	} as KubeObject;
}

function refusedSample(text: string, pool: string): number | undefined {
	const m = new RegExp(
		`^ctpool_claims_refused_total\\{namespace="${c.ns}",pool="${pool}"\\} (\\S+)$`,
		'm',
	).exec(text);
	return m ? Number(m[1]) : undefined;
}

describe('hostile Events', { timeout: 120_000 }, () => {
	it('an audit count of 1e309 neither ends the reconciler nor reaches the counter', async () => {
		const admin = c.context();
		expect((await apply(admin, 'full', poolSpec({ size: 1 }))).errors).toEqual([]);
		const { server } = await reconciler();
		await waitFor(async () => refusedSample(await scrape(server), 'full') === 0, {
			what: 'the refusal counter at 0 once the Events are listed',
		});
		await c.api.put(
			'events',
			forged(
				'full.infinity',
				'full',
				'{"v":1,"action":"claim-refused","pool":"full","actor":"x","count":1e309}',
			),
		);
		await c.api.put(
			'events',
			forged('full.one', 'full', '{"v":1,"action":"claim-refused","pool":"full","actor":"x"}'),
		);
		// the later Event is counted: the watch and the process outlived the first
		await waitFor(async () => refusedSample(await scrape(server), 'full') !== 0, {
			what: 'the refusal after the hostile Event counted',
		});
		const value = refusedSample(await scrape(server), 'full');
		expect(Number.isFinite(value)).toBe(true);
		expect(uncaught).toEqual([]);
	});

	it('forged refusals of pools that do not exist add no series', async () => {
		const { server } = await reconciler();
		await waitFor(async () => refusedSample(await scrape(server), 'full') !== undefined, {
			what: 'the counter of the defined pool',
		});
		for (let i = 0; i < 20; i++)
			await c.api.put(
				'events',
				forged(
					`ghost-${i}.x`,
					`ghost-${i}`,
					JSON.stringify({ v: 1, action: 'claim-refused', pool: `ghost-${i}`, actor: 'x' }),
				),
			);
		await c.api.put(
			'events',
			forged('full.two', 'full', '{"v":1,"action":"claim-refused","pool":"full","actor":"x"}'),
		);
		const text = await waitFor(
			async () => {
				const t = await scrape(server);
				return (refusedSample(t, 'full') ?? 0) >= 1 ? t : undefined;
			},
			{ what: 'the refusal of the defined pool counted' },
		);
		expect(text).not.toContain('pool="ghost-');
		expect(uncaught).toEqual([]);
	});
});

describe('a watch handler that throws', { timeout: 60_000 }, () => {
	it('is told in one line naming the object, and the watch goes on', async () => {
		const lines: string[] = [];
		const before = setHandlerErrorSink((line) => lines.push(line));
		const kube = await loadKube({ kubeconfig: c.kubeconfigPath });
		const seen: string[] = [];
		const watch = startResilientWatch(
			kube,
			{ plural: 'configmaps', kind: 'ConfigMap', apiVersion: 'v1', namespace: c.ns },
			{ labelSelector: 'hostile-test' },
			{
				onReset() {},
				onChange(_op, o) {
					const name = o.metadata?.name ?? '';
					if (name === 'bad') throw new TypeError('errors?.find is not a function');
					seen.push(name);
				},
				onState() {},
			},
		);
		try {
			await waitFor(() => watch.state().phase === 'synced', { what: 'the watch in sync' });
			const cm = (name: string) =>
				({
					apiVersion: 'v1',
					kind: 'ConfigMap',
					metadata: { name, namespace: c.ns, labels: { 'hostile-test': 'x' } },
					data: {},
				}) as KubeObject;
			await c.api.put('configmaps', cm('bad'));
			await c.api.put('configmaps', cm('good'));
			await waitFor(() => seen.includes('good'), { what: 'the object after the bad one' });
			expect(uncaught).toEqual([]);
			expect(lines).toHaveLength(1);
			expect(lines[0]).toMatch(/ConfigMap .*\/bad/);
			expect(lines[0]).toContain('errors?.find is not a function');
			expect(lines[0]).not.toContain('\n');
		} finally {
			watch.stop();
			setHandlerErrorSink(before);
		}
	});
});

describe('a future-dated Event in the audit', () => {
	it('is shown at its creation (set by the API server), marked clamped', async () => {
		const now = Date.now();
		const ctx = c.context({ now: () => now });
		await c.api.put('events', {
			...forged(
				'full.future',
				'full',
				'{"v":1,"action":"release","pool":"full","actor":"mallory","member":"full-1"}',
			),
			lastTimestamp: '2099-01-01T00:00:00Z',
		} as KubeObject);
		const trail = await readAudit(ctx, { pool: 'full' });
		const line = trail.entries.find((e) => e.name === 'full.future');
		const created = Date.parse(
			String(line && (await c.api.get('events', 'full.future'))?.metadata.creationTimestamp),
		);
		expect(line?.time).toBe(created);
		expect(line?.clamped).toBe(true);
		expect(trail.oldest).not.toBeNull();
		expect(trail.oldest! <= now).toBe(true);
	});
});
