/**
 * Test helpers around the simulated cluster: start one at test pace with its kubeconfig in
 * a temp dir, and build client-node clients through the kubeconfig.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { type SimCluster, type StartSimOptions, startSimCluster } from '../../source/sim/index.js';

/** A simulated cluster started for a test, with its temp dir. */
export interface TestSim {
	cluster: SimCluster;
	/** The kubeconfig file (in `dir`). */
	kubeconfigPath: string;
	/** A temp dir owned by this sim (removed by cleanup): put kubectl caches and scratch files here. */
	dir: string;
	/** Closes the cluster and removes the temp dir. */
	cleanup(): Promise<void>;
}

/**
 * Starts a simulated cluster for tests: timeScale 0.01 (controllers act in milliseconds),
 * bookmarks every 200 ms, and the kubeconfig written into a fresh temp dir.
 */
export async function startTestSim(opts: StartSimOptions = {}): Promise<TestSim> {
	const dir = await mkdtemp(join(tmpdir(), 'ctpool-test-sim-'));
	const kubeconfigPath = opts.kubeconfigPath ?? join(dir, 'kubeconfig');
	let cluster: SimCluster;
	try {
		cluster = await startSimCluster({
			bookmarkIntervalMs: 200,
			...opts,
			// The tests' pools live in namespace corral (see vitest.config.ts).
			namespaces: ['corral', ...(opts.namespaces ?? [])],
			kubeconfigPath,
			config: { timeScale: 0.01, ...opts.config },
		});
	} catch (err) {
		await rm(dir, { recursive: true, force: true });
		throw err;
	}
	let cleaned: Promise<void> | undefined;
	return {
		cluster,
		kubeconfigPath,
		dir,
		cleanup() {
			cleaned ??= (async () => {
				await cluster.close();
				await rm(dir, { recursive: true, force: true });
			})();
			return cleaned;
		},
	};
}

/**
 * Starts a simulated cluster before the tests of the current file (or describe block) and
 * cleans it up after them. Read `.cluster` / `.sim` inside tests, not at collection time.
 */
export function withSim(opts: StartSimOptions = {}): {
	readonly sim: TestSim;
	readonly cluster: SimCluster;
	readonly kubeconfigPath: string;
} {
	let sim: TestSim | undefined;
	beforeAll(async () => {
		sim = await startTestSim(opts);
	});
	afterAll(async () => {
		await sim?.cleanup();
	});
	const need = (): TestSim => {
		if (!sim) throw new Error('withSim: the cluster is not started yet (use it inside a test)');
		return sim;
	};
	return {
		get sim() {
			return need();
		},
		get cluster() {
			return need().cluster;
		},
		get kubeconfigPath() {
			return need().kubeconfigPath;
		},
	};
}

/** A client-node KubeConfig loaded from the sim's kubeconfig file (imports client-node lazily). */
export async function kubeConfigFor(sim: { kubeconfigPath: string }): Promise<KubeConfig> {
	const { KubeConfig } = await import('@kubernetes/client-node');
	const kc = new KubeConfig();
	kc.loadFromFile(sim.kubeconfigPath);
	return kc;
}

/**
 * A client-node KubeConfig acting as ServiceAccount `namespace/name` of the sim (created if
 * missing; it has no rights until a Role is bound to it), with its kubeconfig file's path.
 */
export async function serviceAccountKubeConfig(
	cluster: SimCluster,
	namespace: string,
	name: string,
): Promise<{ kc: KubeConfig; kubeconfigPath: string; token: string }> {
	const kubeconfigPath = await cluster.serviceAccountKubeconfig(namespace, name);
	const kc = await kubeConfigFor({ kubeconfigPath });
	return { kc, kubeconfigPath, token: kc.getCurrentUser()?.token ?? '' };
}

/** Raw HTTP against the sim with its token (for what client-node does not expose). */
export async function simFetch(
	cluster: SimCluster,
	path: string,
	init: {
		method?: string;
		headers?: Record<string, string>;
		body?: string;
		token?: string | null;
	} = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
	const headers: Record<string, string> = { ...(init.headers ?? {}) };
	const token = init.token === undefined ? cluster.token : init.token;
	if (token !== null) headers.Authorization = `Bearer ${token}`;
	const res = await fetch(`${cluster.url}${path}`, {
		method: init.method ?? 'GET',
		headers,
		...(init.body !== undefined ? { body: init.body } : {}),
	});
	const text = await res.text();
	return {
		status: res.status,
		headers: res.headers,
		text,
		json: () => JSON.parse(text) as unknown,
	};
}
