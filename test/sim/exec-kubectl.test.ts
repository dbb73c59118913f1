/**
 * Exec end to end through the simulated cluster's own API server: the real kubectl
 * (non-interactive `exec -- hostname` and an interactive `exec -it` in a pseudo-terminal),
 * and client-node's Exec through the cluster's kubeconfig.
 */

import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Exec, type V1Status } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeKubectl, kubectlPath, kubectl as runKubectl } from '../support/kubectl.js';
import { kubeConfigFor, withSim } from '../support/sim.js';
import { startTerminal, terminalEnv } from '../support/terminal.js';
import { waitFor } from '../support/wait.js';
import { isReady, NS, pod, podManifest } from './behaviour-support.js';

const sim = withSim();

beforeAll(async () => {
	const { store } = sim.cluster;
	store.create('pods', podManifest('desk-1'));
	store.create('pods', podManifest('desk-2'));
	await waitFor(() => isReady(pod(store, 'desk-1')) && isReady(pod(store, 'desk-2')), {
		what: 'desk-1 and desk-2 Ready',
		wakeOn: store,
	});
});

function cacheDir(): string {
	return join(sim.sim.dir, 'kube-cache');
}

function kubectl(...args: string[]) {
	return runKubectl(['-n', NS, ...args], { kubeconfig: sim.kubeconfigPath, cacheDir: cacheDir() });
}

describeKubectl('kubectl exec against the simulated cluster', () => {
	it('runs a command non-interactively', async () => {
		const r = await kubectl('exec', 'desk-1', '--', 'hostname');
		expect(r.stderr).toBe('');
		expect(r.stdout).toBe('desk-1\n');
		expect(r.code).toBe(0);
	});

	it('passes the exit code through', async () => {
		const r = await kubectl('exec', 'desk-2', '--', 'sh', '-c', 'echo bye; exit 3');
		expect(r.stdout).toBe('bye\n');
		expect(r.stderr).toContain('command terminated with exit code 3');
		expect(r.code).toBe(3);
	});

	it('gives the real error for a missing pod', async () => {
		const r = await kubectl('exec', 'ghost', '--', 'hostname');
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain('pods "ghost" not found');
	});

	it('runs an interactive shell in a pseudo-terminal', async () => {
		const args = ['--kubeconfig', sim.kubeconfigPath, '--cache-dir', cacheDir(), '-n', NS];
		const term = startTerminal(kubectlPath()!, [...args, 'exec', '-it', 'desk-1', '--', 'sh'], {
			columns: 90,
			rows: 20,
			env: terminalEnv({ KUBECACHEDIR: cacheDir() }),
		});
		try {
			await term.waitFor(/desk-1:\/# $/m);
			term.write('hostname\r');
			await term.waitFor(/^desk-1:\/# hostname\ndesk-1\ndesk-1:\/# $/m);
			term.write('stty size\r');
			await term.waitFor(/^20 90$/m);
			term.write('exit\r');
			expect(await term.exited).toBe(0);
		} finally {
			term.dispose();
		}
	});
});

describe('client-node Exec through the simulated cluster', () => {
	it('runs a command with the cluster kubeconfig and reports its exit code', async () => {
		const kc = await kubeConfigFor(sim);
		const out = new PassThrough();
		let stdout = '';
		out.on('data', (d: Buffer) => {
			stdout += d.toString('utf8');
		});
		const status = await new Promise<V1Status>((resolve, reject) => {
			new Exec(kc)
				.exec(NS, 'desk-1', 'ct', ['sh', '-c', 'hostname; exit 5'], out, null, null, false, resolve)
				.catch(reject);
		});
		expect(stdout).toBe('desk-1\n');
		expect(status).toMatchObject({
			reason: 'NonZeroExitCode',
			details: { causes: [{ message: '5' }] },
		});
	});
});
