/**
 * The benchmark on the real control plane (`npm run bench -- --cluster real`): a cluster of
 * its own beside the tests' (scripts/real.mjs, instance `bench`), with nodes roomy enough
 * for the start-up pool and the scale pools. The benchmark, ctpool and kubectl act as one
 * cluster-admin ServiceAccount; who asked what is read from the apiserver's audit log, by
 * User-Agent, as the simulated cluster's audit tells it.
 */

import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ApiClient } from './api-client.js';
import type { ActivitySince, ClientActivity } from './sim-control.js';
import type { SimHandle } from './sim-process.js';

/** What scripts/real.mjs wrote once the cluster was Ready. */
interface RealReady {
	pid: number;
	server: string;
	kubeconfig: string;
	auditLog: string;
}

interface RealModule {
	up(o: Record<string, unknown>): Promise<RealReady>;
	down(o: Record<string, unknown>): Promise<void>;
}

const INSTANCE = 'bench';
const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** One line of the audit log, as far as the benchmark reads it. */
interface AuditLine {
	verb: string;
	userAgent?: string;
	objectRef?: { resource?: string; subresource?: string };
	responseStatus?: { code?: number };
}

/** The first product token of a User-Agent (`kubectl/v1.32.4 (linux/amd64)` -> `kubectl`). */
function who(ua: string | undefined): string {
	return (ua ?? '').trim().split(/[\s/]/, 1)[0] || 'unknown';
}

/** Requests and writes per client in the audit log after a byte offset. */
function activity(file: string, mark: number): ActivitySince {
	const size = statSync(file).size;
	const fd = openSync(file, 'r');
	const buf = Buffer.alloc(Math.max(0, size - mark));
	try {
		readSync(fd, buf, 0, buf.length, mark);
	} finally {
		closeSync(fd);
	}
	const out: ActivitySince = {};
	for (const text of buf.toString('utf8').split('\n')) {
		if (!text.trim()) continue;
		const l = JSON.parse(text) as AuditLine;
		const client = who(l.userAgent);
		const a: ClientActivity = out[client] ?? {
			requests: 0,
			byVerb: {},
			writes: 0,
			unchangedWrites: 0,
			writesByKind: {},
		};
		out[client] = a;
		a.requests++;
		a.byVerb[l.verb] = (a.byVerb[l.verb] ?? 0) + 1;
		if (!MUTATING.has(l.verb)) continue;
		const code = l.responseStatus?.code ?? 0;
		if (code >= 200 && code < 300) {
			a.writes++;
			const kind = `${l.verb} ${l.objectRef?.resource ?? ''}`;
			a.writesByKind[kind] = (a.writesByKind[kind] ?? 0) + 1;
		} else a.unchangedWrites++;
	}
	return out;
}

/**
 * Starts the benchmark's real control plane (10 nodes of 3,000 cpu, 4,000Gi and 1,100 pods)
 * and a cluster-admin ServiceAccount for everything the benchmark runs.
 */
export async function startRealCluster(root: string, tmp: string): Promise<SimHandle> {
	const real = (await import(pathToFileURL(join(root, 'scripts', 'real.mjs')).href)) as RealModule;
	const ready = await real.up({
		instance: INSTANCE,
		nodes: 10,
		nodeCpu: '3000',
		nodeMemory: '4000Gi',
		nodePods: '1100',
		quiet: true,
	});
	const kubectl = (...args: string[]) =>
		execFileSync('kubectl', ['--kubeconfig', ready.kubeconfig, ...args], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		}).trim();
	// Its own namespace: the audit policy leaves kube-system's accounts (the controllers) out.
	try {
		kubectl('get', 'serviceaccount', '-n', 'ctpool-bench', 'ctpool-bench');
	} catch {
		kubectl('create', 'namespace', 'ctpool-bench');
		kubectl('create', 'serviceaccount', '-n', 'ctpool-bench', 'ctpool-bench');
		kubectl(
			'create',
			'clusterrolebinding',
			'ctpool-bench',
			'--clusterrole=cluster-admin',
			'--serviceaccount=ctpool-bench:ctpool-bench',
		);
	}
	const token = kubectl('create', 'token', '-n', 'ctpool-bench', 'ctpool-bench', '--duration=24h');
	const ca = /certificate-authority-data: (\S+)/.exec(readFileSync(ready.kubeconfig, 'utf8'))?.[1];
	const kubeconfig = join(tmp, 'real-bench.kubeconfig');
	writeFileSync(
		kubeconfig,
		[
			'apiVersion: v1',
			'kind: Config',
			'clusters:',
			'- name: bench',
			'  cluster:',
			`    server: ${ready.server}`,
			`    certificate-authority-data: ${ca}`,
			'users:',
			'- name: ctpool-bench',
			'  user:',
			`    token: ${token}`,
			'contexts:',
			'- name: bench',
			'  context: {cluster: bench, user: ctpool-bench}',
			'current-context: bench',
			'',
		].join('\n'),
		{ mode: 0o600 },
	);
	const api = new ApiClient(ready.server, token, { agentName: 'ctpool-bench', maxSockets: 48 });
	return {
		info: {
			pid: ready.pid,
			url: ready.server,
			httpsUrl: ready.server,
			token,
			kubeconfigPath: kubeconfig,
			controlUrl: '',
		},
		kubeconfig,
		api,
		mark: async () => statSync(ready.auditLog).size,
		since: async (mark) => activity(ready.auditLog, mark),
		// A real cluster's controllers are not ours to count: nothing waits in them here.
		backlog: async () => ({ waitingPods: 0, timers: 0, controllerErrors: 0 }),
		// The control plane's own CPU and memory are not measured here (no scenario reads them).
		usage: async () => ({
			cpu: { user: 0, system: 0 },
			memory: { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 },
		}),
		async stop() {
			api.close();
			await real.down({ instance: INSTANCE, quiet: true });
		},
	};
}
