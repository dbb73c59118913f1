/**
 * The one test cluster factory: a simulated cluster at test pace, or a namespace of the real
 * control plane (CTPOOL_TEST_CLUSTER=real, `npm run test:real`), with a Kube through its
 * kubeconfig, engine contexts over it, an admin client, and what ctpool did in its audit
 * log. Engine, command, safety, controller and chaos tests start theirs here; the same test
 * files run on both clusters.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import {
	createEngineContext,
	type EngineContext,
	type EngineEvent,
} from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import type { AuditMutation } from '../../source/sim/audit.js';
import type { SimClusterConfig } from '../../source/sim/config.js';
import type { SimCluster } from '../../source/sim/index.js';
import { ObjectApi } from './object-api.js';
import {
	clusterAdmin,
	createNamespace,
	RealAudit,
	realReady,
	serviceAccountKubeconfig,
	testNamespace,
} from './real-cluster.js';
import { startTestSim, type TestSim } from './sim.js';
import { waitFor } from './wait.js';

/** What a test may set on its engine contexts. */
export type TestContextOptions = Partial<Omit<EngineContext, 'kube'>>;

/** An engine context that records what it emits. */
export type TestContext = EngineContext & { events: EngineEvent[] };

/**
 * An engine context for a test: actor test-admin, a 20 s delete timeout, and every event
 * it emits kept in `events`; `opts` on top.
 */
export function testContext(kube: Kube, opts: TestContextOptions = {}): TestContext {
	const events: EngineEvent[] = [];
	const ctx = createEngineContext(kube, {
		deleteTimeoutMs: 20_000,
		actor: 'test-admin',
		emit: (e) => events.push(e),
		...opts,
	});
	return Object.assign(ctx, { events });
}

/** Which cluster the tests run on: the simulated one (`npm test`) or the real one (`npm run test:real`). */
export const clusterKind: 'sim' | 'real' =
	process.env.CTPOOL_TEST_CLUSTER === 'real' ? 'real' : 'sim';

/** Whether the tests run on the real control plane. */
export const onRealCluster = clusterKind === 'real';

/**
 * A test that only makes sense on the simulated cluster (fault injection, time scaling, its
 * store): skipped on the real control plane, saying why.
 */
export function itSim(
	name: string,
	reason: string,
	fn: () => Promise<void> | void,
	timeout?: number,
): void {
	// Reason: on the real control plane the test needs what only the simulated cluster has
	// (fault injection, time scaling, its store); the skip carries that reason in its name.
	if (onRealCluster) it.skip(`${name} [simulated cluster only: ${reason}]`, fn);
	else it(name, fn, timeout);
}

/** A describe block that only makes sense on the simulated cluster (see itSim). */
export function describeSim(name: string, reason: string, fn: () => void): void {
	// Reason: on the real control plane the block needs what only the simulated cluster has;
	// the skip carries that reason in its name.
	if (onRealCluster) describe.skip(`${name} [simulated cluster only: ${reason}]`, fn);
	else describe(name, fn);
}

/** A running test cluster: the simulated one, or a namespace of the real control plane. */
export interface TestCluster {
	kind: 'sim' | 'real';
	/** The namespace of the test's pools: corral on the simulated cluster, a fresh one on the real. */
	ns: string;
	/** The tests' admin client (reads what the cluster holds, writes as another client would). */
	api: ObjectApi;
	/** The simulated cluster (its store, faults, clock): throws on the real control plane. */
	sim: SimCluster;
	/** The started sim with its temp dir: throws on the real control plane (use `dir`). */
	test: TestSim;
	/** A temp dir of this test cluster (removed by close). */
	dir: string;
	kube: Kube;
	/** The kubeconfig file (an admin's). */
	kubeconfigPath: string;
	/** `--kubeconfig <file>`, for commands. */
	kc: string[];
	/** A fresh engine context: a new engine (its own caches), with its own event list. */
	context(opts?: TestContextOptions): TestContext;
	/** A mark in the cluster's audit log (for ctpoolMutations and ctpoolRequests). */
	mark(): number;
	/** ctpool's mutations (attempted or done) after a mark. */
	ctpoolMutations(mark: number): Promise<AuditMutation[]>;
	/** How many requests ctpool made after a mark. */
	ctpoolRequests(mark: number): Promise<number>;
	/** Waits until the pool has pods and every one of them is Running. */
	running(pool: string): Promise<void>;
	/**
	 * A kubeconfig acting as ServiceAccount `name` (in the test namespace unless told) with
	 * exactly these rules: a Role `name` and its RoleBinding, created as the admin.
	 */
	grant(name: string, rules: readonly RoleRule[], namespace?: string): Promise<string>;
	close(): Promise<void>;
}

/**
 * Test pace: every controller delay scaled down, short grace periods; nodes roomy enough that
 * pools of 50 one-core members fit (a CT's cpu is whole cores).
 */
export const FAST: Partial<SimClusterConfig> = {
	timeScale: 0.01,
	containerStartMs: 1500,
	nodes: ['node-a', 'node-b', 'node-c'].map((name) => ({ name, cpu: '64', memory: '32Gi' })),
};

/**
 * Starts a test cluster: on the simulated cluster, one at test pace (with extra namespaces)
 * and a Kube for it through its kubeconfig; on the real control plane, a fresh namespace
 * (the extra namespaces are created if missing) and a Kube through the admin kubeconfig.
 * `config` is the simulated cluster's; the real one ignores it.
 */
export async function startTestCluster(
	config: Partial<SimClusterConfig> = {},
	opts: { namespaces?: string[] } = {},
): Promise<TestCluster> {
	return onRealCluster ? startRealTestCluster(opts) : startSimTestCluster(config, opts);
}

async function startSimTestCluster(
	config: Partial<SimClusterConfig>,
	opts: { namespaces?: string[] },
): Promise<TestCluster> {
	const test = await startTestSim({ config: { ...FAST, ...config }, ...opts });
	const sim = test.cluster;
	const kube = await loadKube({ kubeconfig: test.kubeconfigPath });
	const api = ObjectApi.fromFile(test.kubeconfigPath, 'corral');
	const c: TestCluster = {
		kind: 'sim',
		ns: 'corral',
		api,
		sim,
		test,
		dir: test.dir,
		kube,
		kubeconfigPath: test.kubeconfigPath,
		kc: ['--kubeconfig', test.kubeconfigPath],
		context: (opts = {}) => testContext(kube, opts),
		mark: () => sim.audit.mark(),
		async ctpoolMutations(mark) {
			return sim.audit.since(mark).mutations.filter((m) => m.who === 'ctpool');
		},
		async ctpoolRequests(mark) {
			return sim.audit.since(mark).requests.filter((r) => r.who === 'ctpool').length;
		},
		running: (pool) => podsRunning(c, pool),
		grant: (name, rules, namespace = 'corral') => grantRole(sim, namespace, name, rules),
		close: () => test.cleanup(),
	};
	return c;
}

async function startRealTestCluster(opts: { namespaces?: string[] }): Promise<TestCluster> {
	const ready = await realReady();
	const ns = testNamespace();
	// The engine, the commands run in this process and those it spawns find the pool
	// namespace here, as an admin's CORRAL_NAMESPACE (each test file has its own process).
	process.env.CORRAL_NAMESPACE = ns;
	const dir = await mkdtemp(join(tmpdir(), 'ctpool-test-real-'));
	const api = ObjectApi.fromFile(ready.kubeconfig, ns);
	for (const name of [ns, ...(opts.namespaces ?? [])]) await createNamespace(api, name);
	// ctpool acts as an admin of this test cluster's own (a cluster-admin ServiceAccount of its
	// namespace), so the audit log tells its requests from those of test files beside it.
	const kubeconfigPath = await clusterAdmin(api, ready, dir, ns);
	const kube = await loadKube({ kubeconfig: kubeconfigPath });
	const audit = new RealAudit(ready.auditLog, ns);
	const simOnly = (what: string): never => {
		throw new Error(
			`${what} is the simulated cluster's; this test runs on the real control plane (mark it itSim or describeSim)`,
		);
	};
	const c: TestCluster = {
		kind: 'real',
		ns,
		api,
		get sim(): SimCluster {
			return simOnly('c.sim');
		},
		get test(): TestSim {
			return simOnly('c.test');
		},
		dir,
		kube,
		kubeconfigPath,
		kc: ['--kubeconfig', kubeconfigPath],
		context: (opts = {}) => testContext(kube, opts),
		mark: () => audit.mark(),
		ctpoolMutations: (mark) => audit.ctpoolMutations(mark),
		async ctpoolRequests(mark) {
			return (await audit.ctpoolRequests(mark)).length;
		},
		running: (pool) => podsRunning(c, pool),
		async grant(name, rules, namespace = ns) {
			await api.put('roles', {
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'Role',
				metadata: { name, namespace },
				rules,
			});
			await api.put('rolebindings', {
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'RoleBinding',
				metadata: { name, namespace },
				roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
				subjects: [{ kind: 'ServiceAccount', name, namespace }],
			});
			return serviceAccountKubeconfig(api, ready, dir, namespace, name);
		},
		async close() {
			// The namespace goes with everything in it; nothing waits for the namespace controller.
			await api.delete('namespaces', ns).catch(() => false);
			await api.delete('clusterrolebindings', `ctpool-test-admin-${ns}`).catch(() => false);
			await rm(dir, { recursive: true, force: true });
		},
	};
	return c;
}

/** Waits until the pool has pods and every one of them is Running. */
async function podsRunning(c: TestCluster, pool: string): Promise<void> {
	await waitFor(
		async () => {
			const pods = await c.api.list('pods', { labelSelector: `corral.dev/vdi-ct-pool=${pool}` });
			return (
				pods.length > 0 &&
				pods.every((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running')
			);
		},
		{ what: `pool ${pool} running`, timeoutMs: 30_000 },
	);
}

/** One rule of a Role (rbac.authorization.k8s.io/v1). */
export interface RoleRule {
	apiGroups: string[];
	resources: string[];
	verbs: string[];
}

/**
 * Makes ServiceAccount `name` in `namespace` act with exactly these rules: a Role `name` and
 * its RoleBinding, created as the admin. Returns the ServiceAccount's kubeconfig.
 */
export function grantRole(
	sim: SimCluster,
	namespace: string,
	name: string,
	rules: readonly RoleRule[],
): Promise<string> {
	const who = { who: 'test-admin' };
	sim.store.create(
		'roles',
		{
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'Role',
			metadata: { name, namespace },
			rules,
		},
		who,
	);
	sim.store.create(
		'rolebindings',
		{
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'RoleBinding',
			metadata: { name, namespace },
			roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
			subjects: [{ kind: 'ServiceAccount', name, namespace }],
		},
		who,
	);
	return sim.serviceAccountKubeconfig(namespace, name);
}
