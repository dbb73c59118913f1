import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSim } from '../../source/commands/sim.js';
import type { SimCluster } from '../../source/sim/index.js';

function sink() {
	let text = '';
	return { write: (s: string) => (text += s), text: () => text };
}

const dirs: string[] = [];
afterEach(async () => {
	for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('ctpool sim', () => {
	it('writes the kubeconfig, prints how to use it, serves until stopped, then closes', async () => {
		const dir = await mkdtemp(join(tmpdir(), 'ctpool-sim-cmd-'));
		dirs.push(dir);
		const path = join(dir, 'sim.kubeconfig');
		const out = sink();
		const err = sink();
		const stop = new AbortController();
		let cluster: SimCluster | undefined;
		const ready = new Promise<void>((resolve) => {
			const done = runSim(
				[
					'--kubeconfig',
					path,
					'--nodes',
					'2',
					'--node-memory',
					'8Gi',
					'--fault',
					'latency=1ms',
					'--demo',
				],
				{
					stdout: out,
					stderr: err,
					signal: stop.signal,
					onReady: (c) => {
						cluster = c;
						resolve();
					},
				},
			);
			void done.then((code) => {
				exit = code;
			});
		});
		let exit: number | undefined;
		await ready;
		expect(out.text()).toContain(`kubectl --kubeconfig ${path} get pods -n corral`);
		expect(out.text()).toContain(`ctpool --kubeconfig ${path} desk`);
		expect(out.text()).toContain('Demo: pool desk (6 desktops) is defined');
		expect(cluster!.store.get('configmaps', 'corral', 'corral-vdi-ctpool-desk')).toBeDefined();
		expect(cluster!.store.list('pods', { namespace: 'corral' })).toHaveLength(6);
		const kubeconfig = await readFile(path, 'utf8');
		expect(kubeconfig).toContain(`server: https://127.0.0.1:${cluster!.port}`);
		expect(kubeconfig).toContain('current-context: ctpool-sim');
		expect((await stat(path)).mode & 0o777).toBe(0o600);
		expect(cluster!.config.nodes.map((n) => `${n.name} ${n.memory}`)).toEqual([
			'node-a 8Gi',
			'node-b 8Gi',
		]);
		expect(cluster!.faults.current().latencyMs).toBe(1);
		const res = await fetch(`${cluster!.url}/api/v1/namespaces/corral`, {
			headers: { Authorization: `Bearer ${cluster!.token}` },
		});
		expect(res.status).toBe(200);
		stop.abort();
		await new Promise<void>((resolve) => {
			const t = setInterval(() => {
				if (exit !== undefined) {
					clearInterval(t);
					resolve();
				}
			}, 10);
		});
		expect(exit).toBe(0);
		expect(out.text()).toContain('ctpool sim: stopped');
		await expect(fetch(`${cluster!.url}/version`)).rejects.toThrow();
		expect(err.text()).toBe('');
	});

	it('rejects bad flags with exit code 2', async () => {
		for (const argv of [
			['--nodes', '0'],
			['--node-cpu', 'lots'],
			['--fault', 'explode=1'],
			['extra'],
			['--bogus'],
			['--port'],
			['--fault', 'latency=1ms', '--fault', 'latency=2ms'],
			['--kubeconfig-for', 'corral/desk-user'],
			['--kubeconfig-for', 'Corral/desk=./x'],
		]) {
			const err = sink();
			expect(await runSim(argv, { stdout: sink(), stderr: err })).toBe(2);
			expect(err.text()).toMatch(/^ctpool sim: /);
		}
	});

	it('--kubeconfig-for writes kubeconfigs acting as ServiceAccounts, created if missing', async () => {
		const dir = await mkdtemp(join(tmpdir(), 'ctpool-sim-cmd-'));
		dirs.push(dir);
		const desk = join(dir, 'desk.kubeconfig');
		const other = join(dir, 'other.kubeconfig');
		const out = sink();
		const stop = new AbortController();
		let exit: number | undefined;
		const cluster = await new Promise<SimCluster>((resolve) => {
			void runSim(
				[
					'--kubeconfig',
					join(dir, 'admin.kubeconfig'),
					'--kubeconfig-for',
					`corral/desk-user=${desk}`,
					'--kubeconfig-for',
					`lab/tester=${other}`,
				],
				{ stdout: out, stderr: sink(), signal: stop.signal, onReady: resolve },
			).then((code) => {
				exit = code;
			});
		});
		try {
			expect(out.text()).toContain(`kubeconfig for ServiceAccount corral/desk-user: ${desk}`);
			expect(cluster.store.get('serviceaccounts', 'corral', 'desk-user')).toBeDefined();
			expect(cluster.store.get('namespaces', undefined, 'lab')).toBeDefined();
			expect(cluster.store.get('serviceaccounts', 'lab', 'tester')).toBeDefined();
			for (const [file, user] of [
				[desk, 'system:serviceaccount:corral:desk-user'],
				[other, 'system:serviceaccount:lab:tester'],
			] as const) {
				expect((await stat(file)).mode & 0o777).toBe(0o600);
				const text = await readFile(file, 'utf8');
				expect(text).toContain(`server: https://127.0.0.1:${cluster.port}`);
				const token = /token: (\S+)/.exec(text)?.[1] ?? '';
				const who = await fetch(`${cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
					method: 'POST',
					headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
					body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
				});
				expect(
					((await who.json()) as { status: { userInfo: { username: string } } }).status.userInfo
						.username,
				).toBe(user);
				const pods = await fetch(`${cluster.url}/api/v1/namespaces/corral/pods`, {
					headers: { Authorization: `Bearer ${token}` },
				});
				expect(pods.status).toBe(403);
			}
		} finally {
			stop.abort();
		}
		await new Promise<void>((resolve) => {
			const t = setInterval(() => {
				if (exit !== undefined) {
					clearInterval(t);
					resolve();
				}
			}, 10);
		});
		expect(exit).toBe(0);
	});

	it('prints help', async () => {
		const out = sink();
		expect(await runSim(['--help'], { stdout: out })).toBe(0);
		expect(out.text()).toContain('Usage: ctpool sim [flags]');
	});
});
