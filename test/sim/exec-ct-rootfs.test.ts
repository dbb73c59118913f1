/**
 * The simulated cluster runs a CT the way Corral's does: a privileged member's bootstrap
 * seeds its PVC with the image's root file system once (the marker), its console lands in that
 * root, and what is written there survives a pod restart; an unprivileged member keeps /data
 * only. Checked with the real kubectl, with exactly the console command ctpool runs.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apply, reconcile } from '../../source/engine/index.js';
import { consoleArgs } from '../../source/tui/session/console.js';
import { waitReady } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { describeKubectl, kubectl, kubectlPath } from '../support/kubectl.js';
import { poolSpec } from '../support/pool-spec.js';
import { startTerminal } from '../support/terminal.js';

describeKubectl('a CT root file system on the simulated cluster', () => {
	let c: TestCluster;
	const run = (args: string[]) =>
		kubectl([...args], { kubeconfig: c.sim.kubeconfigPath, timeoutMs: 30_000 });
	const exec = (pod: string, command: string[]) =>
		run(['exec', pod, '-n', 'corral', '--', ...command]);
	/** Deletes a member's pod and lets reconcile start it again from its PVC. */
	async function restart(pool: string, pod: string): Promise<void> {
		const uid = c.sim.store.get('pods', 'corral', pod)?.metadata.uid;
		expect((await run(['delete', 'pod', pod, '-n', 'corral'])).code).toBe(0);
		const ctx = c.context();
		const result = await reconcile(ctx, pool);
		expect(result.actions.map((a) => [a.member, a.step, a.ok])).toEqual([[pod, 'start', true]]);
		await waitReady(ctx, pool, 1);
		expect(c.sim.store.get('pods', 'corral', pod)?.metadata.uid).not.toBe(uid);
	}

	beforeAll(async () => {
		c = await startTestCluster();
		const ctx = c.context();
		await apply(ctx, 'priv', poolSpec({ size: 1, privileged: true }));
		await apply(ctx, 'plain', poolSpec({ size: 1 }));
		await waitReady(ctx, 'priv', 1);
		await waitReady(ctx, 'plain', 1);
	});
	afterAll(() => c?.close());

	it('seeds a privileged member on first boot: the marker and the image root on its PVC', async () => {
		const outer = await exec('priv-1', ['ls', '-a', '/corral-rootfs']);
		expect(outer.stderr).toBe('');
		expect(outer.stdout.split('\n')).toEqual(
			expect.arrayContaining(['.corral-seeded', 'bin', 'dev', 'etc', 'proc', 'root', 'sys']),
		);
		const inside = await exec('priv-1', [
			'chroot',
			'/corral-rootfs',
			'/bin/sh',
			'-c',
			'cat /etc/hostname; ls -a /root | grep profile; ls -a / | grep corral-seeded',
		]);
		expect(inside).toMatchObject({ code: 0, stderr: '' });
		expect(inside.stdout).toBe('priv-1\n.profile\n.corral-seeded\n');
	});

	it("opens the console inside the seeded root, with exactly the console's kubectl command; a file written there survives a restart", async () => {
		const bin = kubectlPath()!;
		const args = consoleArgs({ member: 'priv-1', namespace: 'corral', privileged: true });
		expect(args).toEqual([
			'exec',
			'-it',
			'priv-1',
			'-n',
			'corral',
			'-c',
			'ct',
			'--',
			'chroot',
			'/corral-rootfs',
			'/bin/sh',
			'-c',
			'exec bash 2>/dev/null || exec sh',
		]);
		// As the console hands over: the same command, with the kubeconfig ctpool uses.
		const handOver = consoleArgs({
			member: 'priv-1',
			namespace: 'corral',
			privileged: true,
			kubeconfig: c.sim.kubeconfigPath,
		});
		const env = {
			...process.env,
			KUBECACHEDIR: join(c.sim.kubeconfigPath, '..', 'console-cache'),
		} as NodeJS.ProcessEnv;
		const first = startTerminal(bin, handOver, { env });
		try {
			await first.waitFor('priv-1:/# ', 15_000);
			first.write('ls -a / | grep seeded; echo kept-$((1)) > /etc/notes.txt; cat /etc/notes.txt\r');
			await first.waitFor(/\.corral-seeded[\s\S]*kept-/);
			first.write('exit\r');
			expect(await first.exited).toBe(0);
		} finally {
			first.dispose();
		}
		// Written inside the chroot, it is on the PVC: the outer view sees it too.
		expect((await exec('priv-1', ['cat', '/corral-rootfs/etc/notes.txt'])).stdout).toMatch(
			/^kept-/,
		);
		await restart('priv', 'priv-1');
		const again = startTerminal(bin, handOver, { env });
		try {
			await again.waitFor('priv-1:/# ');
			again.write('cat /etc/notes.txt; ls -a / | grep -c corral-seeded\r');
			await again.waitFor(/kept-\S*\s+1/);
			again.write('exit\r');
			expect(await again.exited).toBe(0);
		} finally {
			again.dispose();
		}
	});

	it('an unprivileged member keeps /data only', async () => {
		const wrote = await exec('plain-1', ['sh', '-c', 'echo data > /data/a; echo root > /etc/b']);
		expect(wrote).toMatchObject({ code: 0, stderr: '' });
		await restart('plain', 'plain-1');
		expect((await exec('plain-1', ['cat', '/data/a'])).stdout).toBe('data\n');
		const lost = await exec('plain-1', ['cat', '/etc/b']);
		expect(lost.code).not.toBe(0);
		expect(lost.stderr).toContain('No such file or directory');
		// No root file system of its own: nothing was seeded.
		expect((await exec('plain-1', ['ls', '/'])).stdout).not.toContain('corral-rootfs');
	});
});
