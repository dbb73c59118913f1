import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

	it('--compaction and --bookmark-interval set the watch history window and the bookmarks', async () => {
		const stop = new AbortController();
		let cluster: SimCluster | undefined;
		const exit = new Promise<number>((resolve) => {
			void runSim(['--compaction', '300ms', '--bookmark-interval', '100ms'], {
				stdout: sink(),
				stderr: sink(),
				signal: stop.signal,
				onReady: (c) => {
					cluster = c;
				},
			}).then(resolve);
		});
		try {
			await vi.waitFor(() => expect(cluster).toBeDefined(), { timeout: 15_000 });
			const c = cluster!;
			const auth = { Authorization: `Bearer ${c.token}` };
			const first = c.store.create('configmaps', {
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: { name: 'a', namespace: 'corral' },
			});
			c.store.create('configmaps', {
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: { name: 'b', namespace: 'corral' },
			});
			const base = `${c.url}/api/v1/namespaces/corral/configmaps?watch=true`;
			// A bookmark comes within the interval (the watch ends at its 1 s timeout).
			const live = await fetch(`${base}&allowWatchBookmarks=true&timeoutSeconds=1`, {
				headers: auth,
			});
			expect(await live.text()).toContain('"type":"BOOKMARK"');
			// More than the window after the second write, a watch from the first gets 410.
			await vi.waitFor(
				() =>
					expect(c.store.compactedRevision()).toBeGreaterThan(
						Number(first.metadata.resourceVersion),
					),
				{ timeout: 15_000 },
			);
			const old = await fetch(`${base}&resourceVersion=${first.metadata.resourceVersion}`, {
				headers: auth,
			});
			expect(await old.text()).toContain('"code":410');
		} finally {
			stop.abort();
			expect(await exit).toBe(0);
		}
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
			['--compaction', 'soon'],
			['--bookmark-interval', '1ms'],
		]) {
			const err = sink();
			expect(await runSim(argv, { stdout: sink(), stderr: err })).toBe(2);
			expect(err.text()).toMatch(/^ctpool sim: /);
		}
	});

	it('prints help', async () => {
		const out = sink();
		expect(await runSim(['--help'], { stdout: out })).toBe(0);
		expect(out.text()).toContain('Usage: ctpool sim [flags]');
	});
});
