/**
 * Pod termination as the real kubectl sees it: `kubectl delete pod` waits out the default
 * 30 s grace of a `sleep infinity` pod (scaled here), `--grace-period=N` is honoured, and
 * `--grace-period=0` without `--force` becomes 1, as kubectl sends it.
 */

import { expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

describeKubectl('kubectl delete pod against the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) =>
		kubectl(['-n', NS, ...args], { kubeconfig: env.kubeconfigPath });

	/** Creates a running `sleep infinity` pod; returns the grace periods its deletes set. */
	async function sleepingPod(name: string): Promise<number[]> {
		const store = env.cluster.store;
		store.create('pods', {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name, namespace: NS },
			spec: {
				containers: [
					{ name: 'ct', image: 'ghcr.io/example/desktop:1', command: ['sleep', 'infinity'] },
				],
			},
		});
		await waitFor(
			() =>
				(store.get('pods', NS, name)?.status as { phase?: string } | undefined)?.phase ===
				'Running',
			{ what: `${name} running` },
		);
		const graces: number[] = [];
		store.onChange((e) => {
			const g = e.object.metadata.deletionGracePeriodSeconds;
			if (e.resource === 'pods' && e.object.metadata.name === name && g !== undefined)
				graces.push(g);
		});
		return graces;
	}

	it('waits out the default 30 s grace period (scaled) of a sleep infinity pod', async () => {
		const graces = await sleepingPod('sleepy');
		const t0 = Date.now();
		const r = await run('delete', 'pod', 'sleepy');
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('pod "sleepy" deleted');
		expect(graces[0]).toBe(30);
		// The kill came at the end of the grace period (timers never fire early).
		expect(Date.now() - t0).toBeGreaterThanOrEqual(30 * 1000 * env.cluster.config.timeScale);
		expect(env.cluster.store.get('pods', NS, 'sleepy')).toBeUndefined();
	});

	it('honours --grace-period, and turns --grace-period=0 without --force into 1', async () => {
		const seven = await sleepingPod('seven');
		const zero = await sleepingPod('zero');
		expect((await run('delete', 'pod', 'seven', '--grace-period=7')).code).toBe(0);
		expect((await run('delete', 'pod', 'zero', '--grace-period=0')).code).toBe(0);
		expect(seven[0]).toBe(7);
		expect(zero[0]).toBe(1);
	});
});
