/** Starting the benchmark's simulated cluster as a child process and talking to it. */

import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ApiClient } from './api-client.js';
import type { SimChildInfo, SimChildOptions } from './sim-child.js';
import type { ActivitySince } from './sim-control.js';

/** The running simulated cluster, seen from the driver. */
export interface SimHandle {
	info: SimChildInfo;
	/** The kubeconfig every client (ctpool, kubectl) uses. */
	kubeconfig: string;
	/** The bench's own API client (plain HTTP on the same port). */
	api: ApiClient;
	/** A mark in the audit log. */
	mark(): Promise<number>;
	/** Requests and writes per client after a mark. */
	since(mark: number): Promise<ActivitySince>;
	/** The controllers' backlog and the store's revision. */
	backlog(): Promise<{ waitingPods: number; timers: number; controllerErrors: number }>;
	/** The sim process's own CPU and memory. */
	usage(): Promise<{ cpu: NodeJS.CpuUsage; memory: NodeJS.MemoryUsage }>;
	stop(): Promise<void>;
}

async function getJson<T>(url: string): Promise<T> {
	// a kept-alive connection the server closed while this process was busy fails once: retry
	for (let attempt = 1; ; attempt++) {
		try {
			const res = await fetch(url);
			if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
			return (await res.json()) as T;
		} catch (err) {
			if (attempt >= 3) throw err;
		}
	}
}

/**
 * Spawns `node <childEntry> <options>` and resolves once it printed its SimChildInfo line.
 * childEntry is the compiled sim-child.js.
 */
export async function startSimProcess(
	childEntry: string,
	opts: SimChildOptions,
): Promise<SimHandle> {
	const child: ChildProcess = spawn(process.execPath, [childEntry, JSON.stringify(opts)], {
		stdio: ['pipe', 'pipe', 'inherit'],
	});
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const info = await new Promise<SimChildInfo>((resolve, reject) => {
		const lines = createInterface({ input: child.stdout! });
		const timer = setTimeout(
			() => reject(new Error('the simulated cluster did not start')),
			60_000,
		);
		lines.once('line', (line) => {
			clearTimeout(timer);
			try {
				resolve(JSON.parse(line) as SimChildInfo);
			} catch (err) {
				reject(err);
			}
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`the simulated cluster exited (${code}) before it was ready`));
		});
	});
	const api = new ApiClient(info.url, info.token, { agentName: 'ctpool-bench', maxSockets: 48 });
	return {
		info,
		kubeconfig: info.kubeconfigPath,
		api,
		mark: async () => (await getJson<{ mark: number }>(`${info.controlUrl}/mark`)).mark,
		since: (mark) => getJson<ActivitySince>(`${info.controlUrl}/since?mark=${mark}`),
		backlog: () => getJson(`${info.controlUrl}/backlog`),
		usage: () => getJson(`${info.controlUrl}/usage`),
		async stop() {
			api.close();
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
				await exited;
				clearTimeout(killer);
			}
		},
	};
}
