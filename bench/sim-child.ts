/**
 * The benchmark's simulated cluster, as its own process: startSimCluster with room for
 * thousands of members, plus the bench-only control endpoint. It prints one JSON line
 * (SimChildInfo) once ready and runs until SIGTERM, SIGINT or the end of its stdin (so it
 * never outlives the benchmark driver).
 */

import { startSimCluster } from '../source/sim/index.js';
import { startSimControl } from './sim-control.js';

/** What the child is started with (one JSON argument). */
export interface SimChildOptions {
	/** Number of nodes. */
	nodes: number;
	/** Allocatable CPU of each node (a quantity). */
	nodeCpu: string;
	/** Allocatable memory of each node (a quantity). */
	nodeMemory: string;
	/** Scale of every controller delay (1 = real-ish pace). */
	timeScale: number;
	/** Watch history kept by the store (events). */
	historySize: number;
	/** Where to write the kubeconfig. */
	kubeconfigPath: string;
}

/** The line the child prints once the cluster is up. */
export interface SimChildInfo {
	pid: number;
	url: string;
	httpsUrl: string;
	token: string;
	kubeconfigPath: string;
	controlUrl: string;
}

async function main(): Promise<void> {
	const opts = JSON.parse(process.argv[2] ?? '{}') as SimChildOptions;
	const nodes = Array.from({ length: opts.nodes }, (_, i) => ({
		name: `node-${i + 1}`,
		cpu: opts.nodeCpu,
		memory: opts.nodeMemory,
	}));
	const cluster = await startSimCluster({
		config: { nodes, timeScale: opts.timeScale },
		kubeconfigPath: opts.kubeconfigPath,
		historySize: opts.historySize,
	});
	const control = await startSimControl(cluster);
	const info: SimChildInfo = {
		pid: process.pid,
		url: cluster.url,
		httpsUrl: cluster.httpsUrl,
		token: cluster.token,
		kubeconfigPath: cluster.kubeconfigPath,
		controlUrl: control.url,
	};
	process.stdout.write(`${JSON.stringify(info)}\n`);
	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		await control.close();
		await cluster.close();
		process.exit(0);
	};
	process.on('SIGTERM', () => void stop());
	process.on('SIGINT', () => void stop());
	process.stdin.on('end', () => void stop());
	process.stdin.resume();
}

await main();
