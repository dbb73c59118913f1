/**
 * The namespace, as in Corral: -n, else $CORRAL_NAMESPACE, else corral-vms, for every
 * command, the console and the demo (the other tests name corral through CORRAL_NAMESPACE).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeOptions } from '../../source/commands/session.js';
import { loadKube } from '../../source/kube/config.js';
import { PoolError } from '../../source/pool/errors.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { ctpool } from './capture.js';

describe('the namespace rule', () => {
	it('is -n, else $CORRAL_NAMESPACE, else corral-vms', () => {
		expect(kubeOptions({}, {}).namespace).toBe('corral-vms');
		expect(kubeOptions({}, { CORRAL_NAMESPACE: '' }).namespace).toBe('corral-vms');
		expect(kubeOptions({}, { CORRAL_NAMESPACE: 'x' }).namespace).toBe('x');
		expect(kubeOptions({ namespace: 'y' }, { CORRAL_NAMESPACE: 'x' }).namespace).toBe('y');
	});

	it('refuses a CORRAL_NAMESPACE that is no namespace, naming the variable', () => {
		let err: unknown;
		try {
			kubeOptions({}, { CORRAL_NAMESPACE: 'Not A Namespace' });
		} catch (e) {
			err = e;
		}
		expect(err).toBeInstanceOf(PoolError);
		expect((err as PoolError).kind).toBe('usage');
		expect((err as PoolError).message).toContain(
			'CORRAL_NAMESPACE="Not A Namespace" is not a valid namespace',
		);
	});
});

describe('every command in the default namespace', () => {
	let sim: TestSim;
	beforeAll(async () => {
		// A cluster as `ctpool sim` makes it: its kubeconfig names corral-vms; team-x exists too.
		sim = await startTestSim({ namespaces: ['team-x'] });
	});
	afterAll(() => sim?.cleanup());

	const kc = () => ['--kubeconfig', sim.kubeconfigPath];
	const noEnv = { NO_COLOR: '1' };
	const small = ['--cpu', '1', '--mem', '64Mi', '--disk', '1Gi'];

	it('loads corral-vms when neither -n nor CORRAL_NAMESPACE is given', async () => {
		const saved = process.env.CORRAL_NAMESPACE;
		delete process.env.CORRAL_NAMESPACE;
		try {
			expect((await loadKube({ kubeconfig: sim.kubeconfigPath })).namespace).toBe('corral-vms');
		} finally {
			process.env.CORRAL_NAMESPACE = saved;
		}
		expect(sim.cluster.namespace).toBe('corral-vms');
	});

	it('runs apply, reconcile, status, claim, maintenance, release and delete in corral-vms without -n', async () => {
		const image = ['--image', 'ghcr.io/example/desktop:1'];
		const runs: Array<[string[], RegExp | null]> = [
			[['apply', 'home', ...image, '--size', '1', ...small], null],
			[['reconcile', 'home'], null],
			[['status', 'home', '-o', 'json'], /"namespace":"corral-vms"|home-1/],
			[['claim', 'home', 'alice@example.com'], /home-1/],
			[['maintenance', 'home', 'home-1', 'on', 'check'], null],
			[['maintenance', 'home', 'home-1', 'off'], null],
			[['release', 'home', 'home-1', 'alice@example.com'], null],
			[['delete', 'home'], null],
		];
		for (const [argv, out] of runs) {
			const r = await ctpool([...argv, ...kc()], { env: noEnv });
			expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
			if (out) expect(r.stdout).toMatch(out);
			if (argv[0] === 'apply') {
				expect(
					sim.cluster.store.get('configmaps', 'corral-vms', 'corral-vdi-ctpool-home'),
				).toBeDefined();
				expect(
					sim.cluster.store.get('persistentvolumeclaims', 'corral-vms', 'home-1-data'),
				).toBeDefined();
				// Nothing of a pool in corral (its kube-root-ca.crt is the controller manager's).
				expect(
					sim.cluster.store
						.list('configmaps', { namespace: 'corral' })
						.map((cm) => cm.metadata.name),
				).toEqual(['kube-root-ca.crt']);
			}
		}
		expect(
			sim.cluster.store.get('configmaps', 'corral-vms', 'corral-vdi-ctpool-home'),
		).toBeUndefined();
	});

	it('uses $CORRAL_NAMESPACE instead, and -n over both', async () => {
		const apply = [
			'apply',
			'away',
			'--image',
			'ghcr.io/example/desktop:1',
			'--size',
			'1',
			...small,
		];
		const inX = await ctpool([...apply, ...kc()], {
			env: { ...noEnv, CORRAL_NAMESPACE: 'team-x' },
		});
		expect(inX.code).toBe(0);
		expect(sim.cluster.store.get('configmaps', 'team-x', 'corral-vdi-ctpool-away')).toBeDefined();
		expect(
			sim.cluster.store.get('configmaps', 'corral-vms', 'corral-vdi-ctpool-away'),
		).toBeUndefined();
		const status = await ctpool(['status', 'away', ...kc()], {
			env: { ...noEnv, CORRAL_NAMESPACE: 'team-x' },
		});
		expect(status.code).toBe(0);
		// -n wins over the environment: no pool away in corral-vms.
		const elsewhere = await ctpool(['status', 'away', '-n', 'corral-vms', ...kc()], {
			env: { ...noEnv, CORRAL_NAMESPACE: 'team-x' },
		});
		expect(elsewhere.code).toBe(1);
		expect(elsewhere.stderr).toContain('corral-vms');
		const bad = await ctpool(['status', 'away', ...kc()], {
			env: { ...noEnv, CORRAL_NAMESPACE: 'Team X' },
		});
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain('CORRAL_NAMESPACE');
	});
});

describe('ctpool sim --demo without CORRAL_NAMESPACE', () => {
	it('creates corral-vms, names it in the kubeconfig and puts the demo pool there', async () => {
		const { runSim } = await import('../../source/commands/sim.js');
		const saved = process.env.CORRAL_NAMESPACE;
		delete process.env.CORRAL_NAMESPACE;
		let out = '';
		const stop = new AbortController();
		let done: Promise<number> | undefined;
		try {
			const cluster = await new Promise<import('../../source/sim/index.js').SimCluster>(
				(resolve) => {
					done = runSim(['--demo'], {
						stdout: { write: (s: string) => (out += s) },
						stderr: { write: () => true },
						signal: stop.signal,
						onReady: resolve,
					});
				},
			);
			expect(cluster.namespace).toBe('corral-vms');
			expect(out).toContain('namespace corral-vms)');
			expect(cluster.store.get('namespaces', undefined, 'corral-vms')).toBeDefined();
			expect(cluster.store.get('configmaps', 'corral-vms', 'corral-vdi-ctpool-desk')).toBeDefined();
			// A newcomer's command needs no -n: the default is where the demo is.
			const status = await ctpool(['status', 'desk', '--kubeconfig', cluster.kubeconfigPath], {
				env: { NO_COLOR: '1' },
			});
			expect(status.code).toBe(0);
			expect(status.stdout).toContain('desk-1');
		} finally {
			process.env.CORRAL_NAMESPACE = saved;
			stop.abort();
			await done;
		}
	});
});
