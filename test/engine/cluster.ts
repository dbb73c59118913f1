/** A simulated cluster with an engine context over it, for the engine and command tests. */

import {
	createEngineContext,
	type EngineContext,
	type EngineEvent,
} from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import type { AuditMutation } from '../../source/sim/audit.js';
import type { SimClusterConfig } from '../../source/sim/config.js';
import type { SimCluster } from '../../source/sim/index.js';
import { startTestSim } from '../support/sim.js';

/** A running test cluster. */
export interface TestCluster {
	sim: SimCluster;
	kube: Kube;
	/** A fresh engine context: a new engine (its own caches), with its own event list. */
	context(opts?: Partial<Omit<EngineContext, 'kube'>>): EngineContext & { events: EngineEvent[] };
	/** ctpool's mutations (attempted or done) after a mark. */
	ctpoolMutations(mark: number): AuditMutation[];
	/** ctpool's requests after a mark. */
	ctpoolRequests(mark: number): number;
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
		kube,
		context(opts = {}) {
			const events: EngineEvent[] = [];
			const ctx = createEngineContext(kube, {
				deleteTimeoutMs: 20_000,
				actor: 'test-admin',
				emit: (e) => events.push(e),
				...opts,
			});
			return Object.assign(ctx, { events });
		},
		ctpoolMutations(mark) {
			return sim.audit.since(mark).mutations.filter((m) => m.who === 'ctpool');
		},
		ctpoolRequests(mark) {
			return sim.audit.since(mark).requests.filter((r) => r.who === 'ctpool').length;
		},
		close: () => test.cleanup(),
	};
}
