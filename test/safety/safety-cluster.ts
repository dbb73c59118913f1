/**
 * The built binary for the safety tests (where it is, whether it is built, and running it),
 * and a ServiceAccount's kubeconfig on either test cluster.
 */

import { spawn } from 'node:child_process';
import { CLI } from '../support/built-cli.js';
import type { TestCluster } from '../support/cluster.js';
import { realReady, serviceAccountKubeconfig } from '../support/real-cluster.js';

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

/**
 * A kubeconfig acting as ServiceAccount `name` of the test namespace as it stands (its Role
 * and RoleBinding are whatever was applied, e.g. by `ctpool rbac | kubectl apply -f -`): the
 * simulated cluster's, or, on the real control plane, one with a TokenRequest token.
 */
export async function accountKubeconfig(c: TestCluster, name: string): Promise<string> {
	if (c.kind === 'sim') return c.sim.serviceAccountKubeconfig(c.ns, name);
	return serviceAccountKubeconfig(c.api, await realReady(), c.dir, c.ns, name);
}
