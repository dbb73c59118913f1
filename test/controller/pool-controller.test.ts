/** The pool controller against the simulated cluster: every pool, two controllers at once, terminal errors. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Disposition } from '../../source/controller/controller.js';
import { poolKey } from '../../source/controller/pool-cache.js';
import {
	type PoolController,
	startPoolController,
} from '../../source/controller/pool-controller.js';
import { writeDefinition } from '../../source/engine/apply.js';
import { createEngineContext } from '../../source/engine/context.js';
import { createEngine } from '../../source/engine/engine.js';
import type { ReconcileResult } from '../../source/engine/reconcile.js';
import { ctpool } from '../commands/capture.js';
import { putDefinition } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const running: PoolController[] = [];

beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: ['team-b'] });
});
afterAll(async () => {
	await Promise.all(running.map((p) => p.stop()));
	await c?.close();
});

/** A pool controller with its own actor, recording what it did. */
function controllerOf(
	actor: string,
	namespace: string | null,
	pool?: string,
): {
	pools: PoolController;
	results: Array<{ key: string; result: ReconcileResult }>;
	failures: Array<{ key: string; d: Disposition }>;
} {
	const results: Array<{ key: string; result: ReconcileResult }> = [];
	const failures: Array<{ key: string; d: Disposition }> = [];
	const pools = startPoolController({
		kube: c.kube,
		namespace,
		...(pool ? { pool } : {}),
		resyncMs: 60_000,
		settleMs: 50,
		engine: createEngine(c.kube, { actor, deleteTimeoutMs: 20_000 }),
		onReconciled: (key, result) => results.push({ key, result }),
		onFailed: (key, d) => failures.push({ key, d }),
	});
	running.push(pools);
	return { pools, results, failures };
}

/** Writes a definition ConfigMap by hand in a namespace, as `kubectl apply` of a broken one would. */
function putDefinitionIn(namespace: string, pool: string, specText: string): void {
	c.sim.store.create(
		'configmaps',
		{
			apiVersion: 'v1',
			kind: 'ConfigMap',
			metadata: {
				name: `corral-vdi-ctpool-${pool}`,
				namespace,
				labels: { 'corral.dev/vdi-ct-pool': pool },
			},
			data: { spec: specText },
		},
		{ who: 'test' },
	);
}

/** Pods of a pool in a namespace, as the store holds them. */
function pods(namespace: string, pool: string) {
	return c.sim.store
		.list('pods', { namespace })
		.filter((p) => p.metadata.labels?.['corral.dev/vdi-ct-pool'] === pool);
}

function readyPods(namespace: string, pool: string, source?: string): number {
	return pods(namespace, pool).filter(
		(p) =>
			(p.status as { phase?: string } | undefined)?.phase === 'Running' &&
			(source === undefined || p.metadata.labels?.['corral.dev/vdi-ct-source'] === source),
	).length;
}

/** How many times ctpool wrote each object of a kind with a verb since a mark, by name. */
async function writesByName(mark: number, verb: string, resource: string, namespace: string) {
	const counts = new Map<string, number>();
	for (const m of await c.ctpoolMutations(mark))
		if (m.verb === verb && m.resource === resource && m.namespace === namespace && m.changed)
			counts.set(m.name, (counts.get(m.name) ?? 0) + 1);
	return counts;
}

describe('the pool controller', () => {
	it('two controllers on one pool act once per member: each create and each replace happens once', async () => {
		const admin = c.context();
		const mark = c.mark();
		await writeDefinition(admin, 'twin', poolSpec({ size: 6 }));
		const one = controllerOf('reconciler-one', 'corral', 'twin');
		const two = controllerOf('reconciler-two', 'corral', 'twin');
		await waitFor(() => readyPods('corral', 'twin') === 6 || undefined, 'six running members');
		const created = await writesByName(mark, 'create', 'pods', 'corral');
		expect([...created.keys()].sort()).toEqual(
			['twin-1', 'twin-2', 'twin-3', 'twin-4', 'twin-5', 'twin-6'].sort(),
		);
		expect([...created.values()].every((n) => n === 1)).toBe(true);
		expect([
			...(await writesByName(mark, 'create', 'persistentvolumeclaims', 'corral')).values(),
		]).toEqual([1, 1, 1, 1, 1, 1]);

		// a new image: every member replaced once, by one of the two
		const before = c.mark();
		const spec = poolSpec({ size: 6, image: 'ghcr.io/example/desktop:2' });
		await writeDefinition(admin, 'twin', spec);
		const { sourceHash } = await import('../../source/pool/source-hash.js');
		const { sourceFields } = await import('../../source/pool/spec.js');
		const hash = sourceHash(sourceFields(spec));
		await waitFor(
			() => readyPods('corral', 'twin', hash) === 6 || undefined,
			'six members on the new image',
		);
		expect([...(await writesByName(before, 'delete', 'pods', 'corral')).values()]).toEqual([
			1, 1, 1, 1, 1, 1,
		]);
		expect([...(await writesByName(before, 'create', 'pods', 'corral')).values()]).toEqual([
			1, 1, 1, 1, 1, 1,
		]);
		// both were at work all along
		expect(one.results.length).toBeGreaterThan(0);
		expect(two.results.length).toBeGreaterThan(0);
		await Promise.all([one.pools.stop(), two.pools.stop()]);
	});

	it('reconciles every pool of every namespace, picks up a new pool, and is ready once its watches are in sync', async () => {
		const admin = c.context();
		const teamB = createEngineContext(c.kube, { namespace: 'team-b', actor: 'test-admin' });
		await writeDefinition(admin, 'alpha', poolSpec({ size: 2 }));
		await writeDefinition(teamB, 'beta', poolSpec({ size: 1 }));
		const all = controllerOf('reconciler', null);
		expect(all.pools.notReady()).toMatch(/not in sync/);
		await waitFor(() => all.pools.notReady() === null || undefined, 'the watches in sync');
		await waitFor(
			() => (readyPods('corral', 'alpha') === 2 && readyPods('team-b', 'beta') === 1) || undefined,
			'alpha and beta reconciled',
		);
		await writeDefinition(teamB, 'gamma', poolSpec({ size: 2 }));
		await waitFor(
			() => readyPods('team-b', 'gamma') === 2 || undefined,
			'gamma, defined while it runs',
		);
		expect(all.pools.cache.keys()).toEqual(
			expect.arrayContaining([
				poolKey('corral', 'alpha'),
				poolKey('team-b', 'beta'),
				poolKey('team-b', 'gamma'),
			]),
		);
		await all.pools.stop();
	});

	it('reports a corrupt definition once, and reconciles the pool once it is fixed', async () => {
		await putDefinition(c, 'broken', '{"image": ');
		const all = controllerOf('reconciler', 'corral');
		const key = poolKey('corral', 'broken');
		await waitFor(() => all.failures.some((f) => f.key === key) || undefined, 'the terminal error');
		expect(all.failures.filter((f) => f.key === key).map((f) => f.d.kind)).toEqual(['terminal']);
		expect(all.pools.controller.isStopped(key)).toBe(true);
		expect(pods('corral', 'broken')).toHaveLength(0);
		await putDefinition(c, 'broken', JSON.stringify(poolSpec({ size: 1 })));
		await waitFor(
			() => readyPods('corral', 'broken') === 1 || undefined,
			'the fixed pool reconciled',
		);
		expect(all.failures.filter((f) => f.key === key)).toHaveLength(1);
		await all.pools.stop();
	});

	it('reconcile --all makes one pass over every pool and exits 1 when any failed', async () => {
		const kc = ['--kubeconfig', c.sim.kubeconfigPath];
		const teamB = createEngineContext(c.kube, { namespace: 'team-b', actor: 'test-admin' });
		await writeDefinition(teamB, 'yankee', poolSpec({ size: 1 }));
		await writeDefinition(c.context(), 'xray', poolSpec({ size: 1 }));
		const here = await ctpool(['reconcile', '--all', '-n', 'team-b', ...kc]);
		expect(here.stderr).toBe('');
		expect(here.code).toBe(0);
		expect(here.stdout).toContain('yankee-1 created');
		expect(here.stdout).not.toContain('pool xray');

		putDefinitionIn('team-b', 'zulu', '{"image": ');
		const everywhere = await ctpool(['reconcile', '--all', '-A', ...kc]);
		expect(everywhere.code).toBe(1);
		expect(everywhere.stdout).toMatch(/^corral: xray-1 created$/m);
		expect(everywhere.stdout).toMatch(/^corral: pool xray: desired 1/m);
		expect(everywhere.stdout).toMatch(/^team-b: pool yankee: desired 1/m);
		expect(everywhere.stderr).toContain(
			"ctpool: team-b: pool zulu: the definition's spec is not valid JSON",
		);
		expect(everywhere.stderr).toMatch(/ctpool: 1 of \d+ pools failed/);
	});
});
