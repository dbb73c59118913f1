/**
 * A simulated cluster reached through the chaos tap, so that a test can fail exactly the
 * request it means to (one 503 on one path, once) instead of a random share of them.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chaosSpec } from '../../chaos/chaos.js';
import { ReconcilerTap } from '../../chaos/reconciler-tap.js';
import { apply } from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { kubeconfigYaml, type SimCluster } from '../../source/sim/index.js';
import {
	startTestCluster,
	type TestContext,
	type TestContextOptions,
	testContext,
} from '../support/cluster.js';
import type { TestSim } from '../support/sim.js';

/** One planned fault: answer the nth matching request with status (then forget it). */
interface PlannedFault {
	method: string;
	path: RegExp;
	status: number | 'cut';
	skip: number;
	left: number;
}

/** A test cluster behind a tap. */
export interface TappedCluster {
	sim: SimCluster;
	test: TestSim;
	/** The kubeconfig through the tap. */
	kubeconfigPath: string;
	kube: Kube;
	/** An engine context through the tap. */
	context(opts?: TestContextOptions): TestContext;
	/**
	 * Fails requests through the tap: after `skip` matching requests, the next `times` get
	 * status (or have their connection cut). Returns how many it failed so far.
	 */
	fail(
		method: string,
		path: RegExp,
		status: number | 'cut',
		opts?: { skip?: number; times?: number },
	): () => number;
	/** Forgets every planned fault. */
	clear(): void;
	/** Holds matching requests back until the promise the function returns settles. */
	hold(fn: ((method: string, path: string) => Promise<void> | undefined) | null): void;
	/** A Kube straight to the cluster, past the tap (another admin's connection). */
	direct: Kube;
	/** Waits until the pool has pods and every one of them is Running. */
	running(pool: string): Promise<void>;
	/** Every request through the tap, as `METHOD path`. */
	seen: string[];
	close(): Promise<void>;
}

/** Starts a test-pace cluster and a tap in front of it. */
export async function startTappedCluster(): Promise<TappedCluster> {
	const base = await startTestCluster();
	const { sim, test } = base;
	const tap = new ReconcilerTap(sim.port, 'unused', 'corral');
	const port = await tap.listen();
	const kubeconfigPath = join(test.dir, 'tapped.kubeconfig');
	await writeFile(kubeconfigPath, kubeconfigYaml(`http://127.0.0.1:${port}`, sim.token), {
		mode: 0o600,
	});
	const planned: Array<PlannedFault & { hits: number }> = [];
	const seen: string[] = [];
	let holder: ((method: string, path: string) => Promise<void> | undefined) | null = null;
	tap.hooks = {
		hold: (method, path) => holder?.(method, path.split('?', 1)[0] ?? ''),
		beforeRequest(method, path) {
			const bare = path.split('?', 1)[0] ?? '';
			seen.push(`${method} ${bare}`);
			for (const f of planned) {
				if (f.left <= 0 || f.method !== method || !f.path.test(bare)) continue;
				if (f.skip > 0) {
					f.skip--;
					continue;
				}
				f.left--;
				f.hits++;
				return f.status === 'cut' ? false : f.status;
			}
			return true;
		},
	};
	const kube = await loadKube({ kubeconfig: kubeconfigPath });
	return {
		direct: base.kube,
		running: base.running,
		hold(fn) {
			holder = fn;
		},
		sim,
		test,
		kubeconfigPath,
		kube,
		seen,
		context: (opts = {}) => testContext(kube, opts),
		clear() {
			for (const f of planned) f.left = 0;
		},
		fail(method, path, status, opts = {}) {
			const f = { method, path, status, skip: opts.skip ?? 0, left: opts.times ?? 1, hits: 0 };
			planned.push(f);
			return () => f.hits;
		},
		async close() {
			await tap.close();
			await base.close();
		},
	};
}

/** Applies a chaos pool of size members and waits until every one of its pods runs. */
export async function readyPool(c: TappedCluster, pool: string, size: number): Promise<void> {
	await apply(c.context(), pool, chaosSpec(size));
	await c.running(pool);
}
