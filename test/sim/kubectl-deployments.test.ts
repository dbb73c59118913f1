import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';

const NS = 'corral';

const deployment = (name: string, templateApp: string, extra = '') =>
	[
		'apiVersion: apps/v1',
		'kind: Deployment',
		`metadata: {name: ${name}, namespace: ${NS}}`,
		'spec:',
		'  selector: {matchLabels: {app: web}}',
		'  template:',
		`    metadata: {labels: {app: ${templateApp}}}`,
		'    spec:',
		'      containers:',
		'      - name: web',
		'        image: nginx:1.27',
		extra,
		'',
	].join('\n');

describeKubectl('kubectl and apps/v1 Deployments on the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });

	it('apply --dry-run=server answers the defaulted object and stores nothing', async () => {
		const file = join(env.sim.dir, 'deployment.yaml');
		await writeFile(file, deployment('web', 'web'));
		const rev = env.cluster.store.revision();
		const r = await run('apply', '--dry-run=server', '-f', file, '-o', 'json');
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		const obj = JSON.parse(r.stdout) as { spec: Record<string, unknown> };
		expect(obj.spec).toMatchObject({
			replicas: 1,
			revisionHistoryLimit: 10,
			progressDeadlineSeconds: 600,
			strategy: {
				type: 'RollingUpdate',
				rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
			},
			template: {
				spec: {
					restartPolicy: 'Always',
					terminationGracePeriodSeconds: 30,
					dnsPolicy: 'ClusterFirst',
					schedulerName: 'default-scheduler',
					containers: [
						{
							name: 'web',
							imagePullPolicy: 'IfNotPresent',
							terminationMessagePath: '/dev/termination-log',
						},
					],
				},
			},
		});
		expect(env.cluster.store.revision()).toBe(rev);
		expect(env.cluster.store.get('deployments', NS, 'web')).toBeUndefined();
		const plain = await run('apply', '--dry-run=server', '-f', file);
		expect(plain.stdout.trim()).toBe('deployment.apps/web created (server dry run)');
	});

	it('rejects a selector that does not match the template labels with the real message', async () => {
		const file = join(env.sim.dir, 'mismatch.yaml');
		await writeFile(file, deployment('bad', 'other'));
		const r = await run('apply', '--dry-run=server', '-f', file);
		expect(r.code).toBe(1);
		expect(r.stderr.trim()).toBe(
			'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
		);
		const typo = join(env.sim.dir, 'typo.yaml');
		await writeFile(typo, deployment('typo', 'web', '  replica: 3'));
		const t = await run('apply', '--dry-run=server', '-f', typo);
		expect(t.code).toBe(1);
		expect(t.stderr).toContain('strict decoding error: unknown field "spec.replica"');
	});

	it('stores a Deployment; get prints the 1.32 columns, wide adds containers, images, selector', async () => {
		const file = join(env.sim.dir, 'stored.yaml');
		await writeFile(file, deployment('stored', 'web'));
		expect((await run('apply', '-f', file)).code).toBe(0);
		const r = await run('get', 'deployments', '-n', NS);
		const lines = r.stdout.trim().split('\n');
		expect(lines[0]?.split(/\s+/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
		expect(lines[1]?.split(/\s+/).slice(0, 4)).toEqual(['stored', '0/1', '0', '0']);
		const wide = await run('get', 'deploy', 'stored', '-n', NS, '-o', 'wide');
		const w = wide.stdout.trim().split('\n');
		expect(w[0]?.split(/\s+/)).toEqual([
			'NAME',
			'READY',
			'UP-TO-DATE',
			'AVAILABLE',
			'AGE',
			'CONTAINERS',
			'IMAGES',
			'SELECTOR',
		]);
		expect(w[1]?.split(/\s+/).slice(5)).toEqual(['web', 'nginx:1.27', 'app=web']);
		await writeFile(file, deployment('stored', 'web').replace('nginx:1.27', 'nginx:1.28'));
		const diff = await run('diff', '-f', file);
		expect(diff.code).toBe(1);
		expect(diff.stdout).toMatch(/^\+\s+- image: nginx:1\.28$/m);
		const again = await run('apply', '-f', file);
		expect(again.stderr).toBe('');
		expect(again.stdout.trim()).toBe('deployment.apps/stored configured');
		expect(env.cluster.store.get('deployments', NS, 'stored')?.spec).toMatchObject({
			strategy: { type: 'RollingUpdate' },
			template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } },
		});
		const res = await run('api-resources', '--api-group=apps', '--no-headers');
		expect(res.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
		const explain = await run('explain', 'deployment.spec.strategy.rollingUpdate');
		expect(explain.stdout).toMatch(/maxSurge\s+<IntOrString>/);
		const limits = await run('explain', 'pod.spec.containers.resources.limits');
		expect(limits.stdout).toMatch(/FIELD: limits <map\[string\]Quantity>/);
	});
});
