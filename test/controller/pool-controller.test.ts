/** The pool controller against the test cluster: every pool, two controllers at once, terminal errors. */

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
import { itSim, onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { testNamespace } from '../support/real-cluster.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
const running: PoolController[] = [];
/**
 * The second namespace: team-b on the simulated cluster; on the real control plane, shared
 * by every test file, one of this file's own (removed at the end).
 */
const TEAM_B = onRealCluster ? `${testNamespace()}-b` : 'team-b';
/** Why a controller or a pass over every namespace runs on the simulated cluster only. */
const EVERY_NAMESPACE =
	"it reconciles every pool of every namespace, and the real control plane holds other test files' pools";

beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [TEAM_B] });
});
afterAll(async () => {
	await Promise.all(running.map((p) => p.stop()));
	if (c?.kind === 'real') await c.api.delete('namespaces', TEAM_B).catch(() => false);
	await c?.close();
});

/** `ctpool <argv>` in this process, in the test namespace unless told. */
function run(argv: string[]) {
	return ctpool(argv, { env: { NO_COLOR: '1', CORRAL_NAMESPACE: c.ns } });
}

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
async function putDefinitionIn(namespace: string, pool: string, specText: string): Promise<void> {
	await c.api.create('configmaps', {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: {
			name: `corral-vdi-ctpool-${pool}`,
			namespace,
			labels: { 'corral.dev/vdi-ct-pool': pool },
		},
		data: { spec: specText },
	});
}

/** Pods of a pool in a namespace, as the cluster holds them. */
function pods(namespace: string, pool: string) {
	return c.api.list('pods', { namespace, labelSelector: `corral.dev/vdi-ct-pool=${pool}` });
}

async function readyPods(namespace: string, pool: string, source?: string): Promise<number> {
	return (await pods(namespace, pool)).filter(
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
		const one = controllerOf('reconciler-one', c.ns, 'twin');
		const two = controllerOf('reconciler-two', c.ns, 'twin');
		await waitFor(async () => (await readyPods(c.ns, 'twin')) === 6 || undefined, {
			what: 'six running members',
			timeoutMs: 60_000,
		});
		const created = await writesByName(mark, 'create', 'pods', c.ns);
		expect([...created.keys()].sort()).toEqual(
			['twin-1', 'twin-2', 'twin-3', 'twin-4', 'twin-5', 'twin-6'].sort(),
		);
		expect([...created.values()].every((n) => n === 1)).toBe(true);
		expect([
			...(await writesByName(mark, 'create', 'persistentvolumeclaims', c.ns)).values(),
		]).toEqual([1, 1, 1, 1, 1, 1]);

		// a new image: every member replaced once, by one of the two
		const before = c.mark();
		const spec = poolSpec({ size: 6, image: 'ghcr.io/example/desktop:2' });
		await writeDefinition(admin, 'twin', spec);
		const { sourceHash } = await import('../../source/pool/source-hash.js');
		const { sourceFields } = await import('../../source/pool/spec.js');
		const hash = sourceHash(sourceFields(spec));
		// A few members at a time (maxUnavailable, 25% by default), at a real cluster's pace: a
		// replace waits until the old pod and PVC are gone, then makes them again.
		await waitFor(async () => (await readyPods(c.ns, 'twin', hash)) === 6 || undefined, {
			what: 'six members on the new image',
			timeoutMs: 120_000,
		});
		expect([...(await writesByName(before, 'delete', 'pods', c.ns)).values()]).toEqual([
			1, 1, 1, 1, 1, 1,
		]);
		expect([...(await writesByName(before, 'create', 'pods', c.ns)).values()]).toEqual([
			1, 1, 1, 1, 1, 1,
		]);
		// both were at work all along
		expect(one.results.length).toBeGreaterThan(0);
		expect(two.results.length).toBeGreaterThan(0);
		await Promise.all([one.pools.stop(), two.pools.stop()]);
	}, 180_000);

	itSim(
		'reconciles every pool of every namespace, picks up a new pool, and is ready once its watches are in sync',
		EVERY_NAMESPACE,
		async () => {
			const admin = c.context();
			const teamB = createEngineContext(c.kube, { namespace: TEAM_B, actor: 'test-admin' });
			await writeDefinition(admin, 'alpha', poolSpec({ size: 2 }));
			await writeDefinition(teamB, 'beta', poolSpec({ size: 1 }));
			const all = controllerOf('reconciler', null);
			expect(all.pools.notReady()).toMatch(/not in sync/);
			await waitFor(() => all.pools.notReady() === null || undefined, 'the watches in sync');
			await waitFor(
				async () =>
					((await readyPods(c.ns, 'alpha')) === 2 && (await readyPods(TEAM_B, 'beta')) === 1) ||
					undefined,
				'alpha and beta reconciled',
			);
			await writeDefinition(teamB, 'gamma', poolSpec({ size: 2 }));
			await waitFor(
				async () => (await readyPods(TEAM_B, 'gamma')) === 2 || undefined,
				'gamma, defined while it runs',
			);
			expect(all.pools.cache.keys()).toEqual(
				expect.arrayContaining([
					poolKey(c.ns, 'alpha'),
					poolKey(TEAM_B, 'beta'),
					poolKey(TEAM_B, 'gamma'),
				]),
			);
			await all.pools.stop();
		},
	);

	it('reports a corrupt definition once, and reconciles the pool once it is fixed', async () => {
		await putDefinition(c, 'broken', '{"image": ');
		const all = controllerOf('reconciler', c.ns);
		const key = poolKey(c.ns, 'broken');
		await waitFor(() => all.failures.some((f) => f.key === key) || undefined, 'the terminal error');
		expect(all.failures.filter((f) => f.key === key).map((f) => f.d.kind)).toEqual(['terminal']);
		expect(all.pools.controller.isStopped(key)).toBe(true);
		expect(await pods(c.ns, 'broken')).toHaveLength(0);
		await putDefinition(c, 'broken', JSON.stringify(poolSpec({ size: 1 })));
		await waitFor(
			async () => (await readyPods(c.ns, 'broken')) === 1 || undefined,
			'the fixed pool reconciled',
		);
		expect(all.failures.filter((f) => f.key === key)).toHaveLength(1);
		await all.pools.stop();
	});

	it('reconcile --all -n makes one pass over every pool of that namespace', async () => {
		const teamB = createEngineContext(c.kube, { namespace: TEAM_B, actor: 'test-admin' });
		await writeDefinition(teamB, 'yankee', poolSpec({ size: 1 }));
		await writeDefinition(c.context(), 'xray', poolSpec({ size: 1 }));
		const here = await run(['reconcile', '--all', '-n', TEAM_B, ...c.kc]);
		expect(here.stderr).toBe('');
		expect(here.code).toBe(0);
		expect(here.stdout).toContain('yankee-1 created');
		expect(here.stdout).not.toContain('pool xray');
		expect(await pods(TEAM_B, 'yankee')).toHaveLength(1);
		expect(await pods(c.ns, 'xray')).toHaveLength(0);
	});

	itSim(
		'reconcile --all -A makes one pass over every pool and exits 1 when any failed',
		EVERY_NAMESPACE,
		async () => {
			await putDefinitionIn(TEAM_B, 'zulu', '{"image": ');
			const everywhere = await run(['reconcile', '--all', '-A', ...c.kc]);
			expect(everywhere.code).toBe(1);
			expect(everywhere.stdout).toMatch(new RegExp(`^${c.ns}: xray-1 created$`, 'm'));
			expect(everywhere.stdout).toMatch(new RegExp(`^${c.ns}: pool xray: desired 1`, 'm'));
			expect(everywhere.stdout).toMatch(new RegExp(`^${TEAM_B}: pool yankee: desired 1`, 'm'));
			expect(everywhere.stderr).toContain(
				`ctpool: ${TEAM_B}: pool zulu: the definition's spec is not valid JSON`,
			);
			expect(everywhere.stderr).toMatch(/ctpool: 1 of \d+ pools failed/);
		},
	);
});
