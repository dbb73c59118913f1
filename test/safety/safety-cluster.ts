/**
 * The cluster and command runners of the safety tests: a simulated cluster at test pace,
 * ctpool run in-process or as the built binary, and what ctpool did in the audit log.
 */

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AuditMutation } from '../../source/sim/audit.js';
import type { SimClusterConfig } from '../../source/sim/config.js';
import type { SimCluster } from '../../source/sim/index.js';
import { FAST } from '../engine/cluster.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

/** The built CLI; tests through it skip (and say so) when it has not been built. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** Whether dist/cli.js exists. */
export const BUILT = existsSync(CLI);

/** What a command printed and how it ended. */
export interface Ran {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs the built binary with args and an environment; never a shell. */
export function runBinary(
	args: string[],
	env: Record<string, string | undefined> = {},
	timeoutMs = 60_000,
): Promise<Ran> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [CLI, ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...env },
		});
		let stdout = '';
		let stderr = '';
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on('data', (d: Buffer) => {
			stderr += d.toString();
		});
		child.on('error', reject);
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

/** A test cluster for the safety tests. */
export interface SafetyCluster {
	sim: SimCluster;
	test: TestSim;
	kubeconfigPath: string;
	/** `--kubeconfig <file>` for the commands. */
	kc: string[];
	/** ctpool's mutations (attempted or done) after a mark. */
	mutations(mark: number): AuditMutation[];
	/** ctpool's requests after a mark. */
	requests(mark: number): number;
	/** Waits until every pod of the pool is Running. */
	running(pool: string): Promise<void>;
	close(): Promise<void>;
}

/** Starts a test-pace cluster. */
export async function startSafetyCluster(
	config: Partial<SimClusterConfig> = {},
): Promise<SafetyCluster> {
	const test = await startTestSim({ config: { timeScale: 0.01, nodes: FAST.nodes, ...config } });
	const sim = test.cluster;
	return {
		sim,
		test,
		kubeconfigPath: test.kubeconfigPath,
		kc: ['--kubeconfig', test.kubeconfigPath],
		mutations: (mark) => sim.audit.since(mark).mutations.filter((m) => m.who === 'ctpool'),
		requests: (mark) => sim.audit.since(mark).requests.filter((r) => r.who === 'ctpool').length,
		running: (pool) =>
			waitFor(
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
			).then(() => {}),
		close: () => test.cleanup(),
	};
}
