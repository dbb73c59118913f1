/**
 * `kubectl logs` against the simulated cluster: the lines the containers write (Corral's
 * bootstrap says what it seeds, a crash says why), `-f` until the container ends, `--tail`,
 * `--timestamps`, `--since`, `--previous`, `-c`, and the kubelet's errors word for word.
 */

import { expect, it } from 'vitest';
import type { SimObject } from '../../source/sim/store-api.js';
import { describeKubectl, kubectl, spawnKubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';
import { BOOTSTRAP } from './behaviour-support.js';

const NS = 'corral';

function podManifest(
	name: string,
	o: { command?: string[] | null; image?: string; claim?: string; privileged?: boolean } = {},
): SimObject {
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: { name, namespace: NS },
		spec: {
			containers: [
				{
					name: 'ct',
					image: o.image ?? 'ghcr.io/example/desktop:1',
					...(o.command === null ? {} : { command: o.command ?? ['sleep', 'infinity'] }),
					...(o.privileged ? { securityContext: { privileged: true } } : {}),
					...(o.claim ? { volumeMounts: [{ name: 'data', mountPath: '/corral-rootfs' }] } : {}),
				},
			],
			...(o.claim
				? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: o.claim } }] }
				: {}),
		},
	};
}

describeKubectl('kubectl logs against the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) =>
		kubectl(['-n', NS, ...args], { kubeconfig: env.kubeconfigPath });
	const store = () => env.cluster.store;
	const status = (name: string) =>
		store().get('pods', NS, name)?.status as
			| {
					phase?: string;
					containerStatuses?: Array<{
						ready?: boolean;
						state?: { waiting?: { reason?: string } };
						lastState?: { terminated?: unknown };
					}>;
			  }
			| undefined;
	const running = (name: string) =>
		waitFor(() => status(name)?.containerStatuses?.[0]?.ready === true, {
			what: `${name} running`,
		});

	it("shows what Corral's bootstrap seeds on first boot, and that it is already seeded later", async () => {
		store().create('persistentvolumeclaims', {
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
			metadata: { name: 'boot-data', namespace: NS },
			spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
		});
		const boot = podManifest('boot', { command: BOOTSTRAP, privileged: true, claim: 'boot-data' });
		store().create('pods', boot);
		await running('boot');
		const first = await run('logs', 'boot');
		expect(first.code).toBe(0);
		expect(first.stdout).toContain(
			'corral: seeding the root file system of ghcr.io/example/desktop:1 into /corral-rootfs',
		);
		expect(first.stdout).toContain('corral: entering chroot /corral-rootfs');
		// Stopped and started again on the same PVC: the marker is there.
		store().delete('pods', NS, 'boot', { gracePeriodSeconds: 0 });
		store().create('pods', boot);
		await running('boot');
		const again = await run('logs', 'boot');
		expect(again.stdout).toContain('corral: /corral-rootfs is already seeded');
		expect(again.stdout).not.toContain('seeding the root file system');
	});

	it('writes nothing for sleep infinity; --previous without one is the real error; -c checks the name', async () => {
		store().create('pods', podManifest('quiet'));
		await running('quiet');
		const r = await run('logs', 'quiet');
		expect(r.code).toBe(0);
		expect(r.stdout).toBe('');
		const prev = await run('logs', 'quiet', '--previous');
		expect(prev.code).not.toBe(0);
		expect(prev.stderr).toContain('previous terminated container "ct" in pod "quiet" not found');
		const wrong = await run('logs', 'quiet', '-c', 'nope');
		expect(wrong.code).not.toBe(0);
		expect(wrong.stderr).toContain('container nope is not valid for pod quiet');
	});

	it('--tail, --timestamps and --since pick and mark the lines', async () => {
		store().create('pods', podManifest('own', { command: null }));
		await running('own');
		const all = await run('logs', 'own');
		expect(all.stdout).toBe('entrypoint: starting ghcr.io/example/desktop:1\nentrypoint: ready\n');
		const tail = await run('logs', 'own', '--tail=1');
		expect(tail.stdout).toBe('entrypoint: ready\n');
		const stamped = await run('logs', 'own', '--timestamps', '--tail=1');
		expect(stamped.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z entrypoint: ready\n$/);
		const since = await run('logs', 'own', '--since=1h');
		expect(since.stdout).toBe(all.stdout);
		const future = new Date(Date.now() + 3_600_000).toISOString();
		const none = await run('logs', 'own', `--since-time=${future}`);
		expect(none.stdout).toBe('');
	});

	it('-f follows until the container ends: the pod is deleted', async () => {
		store().create('pods', podManifest('follow', { command: null }));
		await running('follow');
		const f = spawnKubectl(['-n', NS, 'logs', '-f', 'follow'], { kubeconfig: env.kubeconfigPath });
		try {
			await f.waitFor(/entrypoint: ready\n/);
			expect(f.child.exitCode).toBeNull();
			const del = await run('delete', 'pod', 'follow', '--wait=false');
			expect(del.code).toBe(0);
			await f.waitFor(/received SIGTERM; shutting down\n/);
			const code = await new Promise<number | null>((resolve) => {
				if (f.child.exitCode !== null) resolve(f.child.exitCode);
				else f.child.once('exit', (c) => resolve(c));
			});
			expect(code).toBe(0);
		} finally {
			await f.stop();
		}
	});

	it('a crash-looping container says why it exits, and --previous shows the last run', async () => {
		store().create('pods', podManifest('crashy', { command: null }));
		await running('crashy');
		env.cluster.controllers.crash(NS, 'crashy');
		await waitFor(() => status('crashy')?.containerStatuses?.[0]?.lastState?.terminated, {
			what: 'a terminated last state',
		});
		const prev = await run('logs', 'crashy', '--previous');
		expect(prev.code).toBe(0);
		expect(prev.stdout).toContain('entrypoint: fatal: cannot write to /data: Input/output error');
		expect(prev.stdout).toContain('entrypoint: exiting with status 1');
	});

	it('an image that cannot be pulled has no logs: the kubelet says why', async () => {
		store().create('pods', podManifest('nopull', { image: 'ghcr.io/example/desktop:broken' }));
		await waitFor(
			() => status('nopull')?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff',
			{ what: 'ImagePullBackOff' },
		);
		const r = await run('logs', 'nopull');
		expect(r.code).not.toBe(0);
		// Between two pulls it is ImagePullBackOff; during one, briefly, ErrImagePull.
		expect(r.stderr).toMatch(
			/container "ct" in pod "nopull" is waiting to start: (trying and failing to pull image|image can't be pulled)/,
		);
	});
});
