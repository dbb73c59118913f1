import { readFile, writeFile } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Kube } from '../../source/kube/config.js';
import type { StartSimOptions } from '../../source/sim/index.js';
import { CLI, requireBuild } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { ObjectApi } from '../support/object-api.js';
import type { TestSim } from '../support/sim.js';
import { startTerminal, type TestTerminal, terminalEnv } from '../support/terminal.js';
import { waitFor } from '../support/wait.js';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Options of a ctpool run in a terminal. */
export interface CtpoolRun {
	args: string[];
	kubeconfig?: string;
	/** kubectl's discovery cache dir. */
	cacheDir?: string;
	columns?: number;
	rows?: number;
	env?: NodeJS.ProcessEnv;
}

/** Runs `node dist/cli.js ARGS` in a terminal. */
export function startCtpool(run: CtpoolRun): TestTerminal {
	requireBuild();
	const env = terminalEnv({
		...(run.cacheDir ? { KUBECACHEDIR: run.cacheDir } : {}),
		...run.env,
	});
	return startTerminal(
		process.execPath,
		[CLI, ...run.args, ...(run.kubeconfig ? ['--kubeconfig', run.kubeconfig] : [])],
		{ columns: run.columns ?? 100, rows: run.rows ?? 30, env, cwd: ROOT },
	);
}

/** Quits with q and waits for the exit code. */
export async function quit(t: TestTerminal): Promise<number> {
	t.write('q');
	return t.exited;
}

/** The cluster and terminals of a file of console tests (see consoleTests). */
export interface ConsoleTests {
	/** The test cluster: the simulated one, or a namespace of the real control plane. */
	readonly cluster: TestCluster;
	/** The simulated cluster with its temp dir: throws on the real control plane (use `cluster`). */
	readonly sim: TestSim;
	/** A Kube on the cluster, in its default namespace. */
	readonly kube: Kube;
	/** Runs ctpool in a terminal against the cluster (its kubeconfig unless run names one); disposed after the test. */
	start(run: CtpoolRun): TestTerminal;
}

/**
 * The set-up of a file of console tests: checks the build and starts a test cluster (the
 * simulated one, `config` its settings, or a namespace of the real control plane) before
 * them, disposes each test's terminal after it, and closes the cluster after them all.
 * Read `.cluster`, `.sim` and `.kube` inside tests, not at collection time.
 */
export function consoleTests(
	opts: Pick<StartSimOptions, 'config' | 'namespaces'> = {},
): ConsoleTests {
	let cluster: TestCluster | undefined;
	const open: TestTerminal[] = [];
	beforeAll(async () => {
		requireBuild();
		cluster = await startTestCluster(
			opts.config ?? {},
			opts.namespaces ? { namespaces: opts.namespaces } : {},
		);
	});
	afterEach(() => {
		for (const t of open.splice(0)) t.dispose();
	});
	afterAll(async () => {
		await cluster?.close();
	});
	const need = (): TestCluster => {
		if (cluster === undefined)
			throw new Error('consoleTests: the cluster is not started yet (use it inside a test)');
		return cluster;
	};
	return {
		get cluster() {
			return need();
		},
		get sim() {
			return need().test;
		},
		get kube() {
			return need().kube;
		},
		start(run) {
			const t = startCtpool({ kubeconfig: need().kubeconfigPath, ...run });
			open.push(t);
			return t;
		},
	};
}

/** A TCP proxy in front of a cluster's API server that can cut the network for a while. */
export interface CuttableLink {
	/** A kubeconfig like the cluster's, through the proxy. */
	kubeconfig: string;
	/**
	 * Cuts the link for `ms`: every open connection is destroyed now, and every new one on
	 * arrival until the time is up (as the simulated cluster's refuseConnectionsFor does).
	 */
	cutFor(ms: number): void;
	close(): Promise<void>;
}

/**
 * Starts a proxy to the API server of a kubeconfig (its first `server:`), and writes a copy
 * of the kubeconfig naming the proxy into `dir`. TLS passes through untouched: the proxy
 * listens on the same host, so the server's certificate still matches.
 */
export async function cuttableLink(kubeconfigPath: string, dir: string): Promise<CuttableLink> {
	const text = await readFile(kubeconfigPath, 'utf8');
	const server = /server:\s*(\S+)/.exec(text)?.[1];
	if (!server) throw new Error(`cuttableLink: no server in ${kubeconfigPath}`);
	const target = new URL(server);
	const targetPort = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
	let cutUntil = 0;
	const sockets = new Set<Socket>();
	const proxy = createServer((client) => {
		if (Date.now() < cutUntil) {
			client.destroy();
			return;
		}
		const upstream = connect(targetPort, target.hostname);
		sockets.add(client);
		sockets.add(upstream);
		const end = () => {
			client.destroy();
			upstream.destroy();
			sockets.delete(client);
			sockets.delete(upstream);
		};
		for (const s of [client, upstream]) {
			s.on('error', end);
			s.on('close', end);
		}
		client.pipe(upstream);
		upstream.pipe(client);
	});
	const host = target.hostname.replace(/^\[|\]$/g, '');
	await new Promise<void>((done, fail) => {
		proxy.once('error', fail);
		proxy.listen(0, host, () => done());
	});
	const address = proxy.address();
	if (address === null || typeof address === 'string')
		throw new Error('cuttableLink: the proxy has no port');
	const via = new URL(server);
	via.port = String(address.port);
	const kubeconfig = join(dir, `link-${address.port}.kubeconfig`);
	await writeFile(kubeconfig, text.replace(server, via.origin), { mode: 0o600 });
	return {
		kubeconfig,
		cutFor(ms) {
			cutUntil = Date.now() + ms;
			for (const s of [...sockets]) s.destroy();
			sockets.clear();
		},
		close: () =>
			new Promise<void>((done) => {
				for (const s of [...sockets]) s.destroy();
				proxy.close(() => done());
			}),
	};
}

/** A finalizer the tests put on an object to hold its deletion until they let go. */
export const HOLD = 'test.ctpool.dev/hold';

/**
 * Puts the test's finalizer on an object (which must exist), or takes it off (an object
 * already gone is let go), retrying a conflict.
 */
export async function holdObject(
	api: ObjectApi,
	resource: string,
	name: string,
	add: boolean,
	timeoutMs: number,
): Promise<void> {
	await waitFor(
		async () => {
			const obj = await api.get(resource, name);
			if (!obj) {
				if (add) throw new Error(`${resource}/${name} not found`);
				return true;
			}
			const rest = (obj.metadata.finalizers ?? []).filter((f) => f !== HOLD);
			return api
				.update(resource, {
					...obj,
					metadata: { ...obj.metadata, finalizers: add ? [...rest, HOLD] : rest },
				})
				.then(
					() => true,
					(err: Error) => {
						if (err.message.includes('HTTP 409')) return false;
						throw err;
					},
				);
		},
		{ what: `${add ? 'hold' : 'let go of'} ${resource}/${name}`, timeoutMs },
	);
}
