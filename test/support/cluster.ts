/**
 * The one test cluster: a simulated cluster at test pace with a Kube through its kubeconfig,
 * engine contexts over it, and what ctpool did in its audit log. Engine, command, safety,
 * controller and chaos tests start theirs here.
 */

import {
	createEngineContext,
	type EngineContext,
	type EngineEvent,
} from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import type { AuditMutation } from '../../source/sim/audit.js';
import type { SimClusterConfig } from '../../source/sim/config.js';
import type { SimCluster } from '../../source/sim/index.js';
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

/** A running test cluster. */
export interface TestCluster {
	sim: SimCluster;
	/** The started sim with its temp dir (put scratch files in `test.dir`). */
	test: TestSim;
	kube: Kube;
	/** The kubeconfig file. */
	kubeconfigPath: string;
	/** `--kubeconfig <file>`, for commands. */
	kc: string[];
	/** A fresh engine context: a new engine (its own caches), with its own event list. */
	context(opts?: TestContextOptions): TestContext;
	/** ctpool's mutations (attempted or done) after a mark. */
	ctpoolMutations(mark: number): AuditMutation[];
	/** ctpool's requests after a mark. */
	ctpoolRequests(mark: number): number;
	/** Waits until the pool has pods and every one of them is Running. */
	running(pool: string): Promise<void>;
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

/** Starts a simulated cluster at test pace (with extra namespaces) and loads a Kube for it through its kubeconfig. */
export async function startTestCluster(
	config: Partial<SimClusterConfig> = {},
	opts: { namespaces?: string[] } = {},
): Promise<TestCluster> {
	const test = await startTestSim({ config: { ...FAST, ...config }, ...opts });
	const sim = test.cluster;
	const kube = await loadKube({ kubeconfig: test.kubeconfigPath });
	return {
		sim,
		test,
		kube,
		kubeconfigPath: test.kubeconfigPath,
		kc: ['--kubeconfig', test.kubeconfigPath],
		context: (opts = {}) => testContext(kube, opts),
		ctpoolMutations(mark) {
			return sim.audit.since(mark).mutations.filter((m) => m.who === 'ctpool');
		},
		ctpoolRequests(mark) {
			return sim.audit.since(mark).requests.filter((r) => r.who === 'ctpool').length;
		},
		async running(pool) {
			await waitFor(
				() => {
					const pods = sim.store
						.list('pods', { namespace: 'corral' })
						.filter((p) => p.metadata.labels?.['corral.dev/vdi-ct-pool'] === pool);
					return (
						pods.length > 0 &&
						pods.every((p) => (p.status as { phase?: string }).phase === 'Running')
					);
				},
				{ what: `pool ${pool} running`, timeoutMs: 30_000 },
			);
		},
		close: () => test.cleanup(),
	};
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
