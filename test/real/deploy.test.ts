/**
 * deploy/ on the real control plane: every manifest, the NetworkPolicy included (the
 * simulated cluster serves no NetworkPolicies), is accepted by kube-apiserver's own
 * validation in a server-side dry run, in a namespace of the test's own.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { describeKubectl, kubectl } from '../support/kubectl.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describeKubectl('kubectl apply --dry-run=server -f deploy/ (real control plane)', () => {
	it('accepts every manifest, the NetworkPolicy and the reconciler tier Role included', async () => {
		const text = readdirSync(DEPLOY)
			.filter((f) => f.endsWith('.yaml'))
			.sort()
			.map((f) => readFileSync(join(DEPLOY, f), 'utf8').replaceAll('corral-vms', c.ns))
			.join('\n---\n');
		const r = await kubectl(['apply', '--dry-run=server', '-f', '-'], {
			kubeconfig: c.kubeconfigPath,
			cacheDir: join(c.dir, 'kubectl-cache'),
			input: text,
		});
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		for (const line of [
			'networkpolicy.networking.k8s.io/ctpool-reconciler-metrics created (server dry run)',
			'role.rbac.authorization.k8s.io/ctpool-reconciler created (server dry run)',
			'deployment.apps/ctpool-reconciler created (server dry run)',
		])
			expect(r.stdout).toContain(line);
		expect(await c.api.get('deployments', 'ctpool-reconciler')).toBeUndefined();
	});
});
