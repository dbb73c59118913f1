import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';

const NS = 'corral';

describeKubectl('kubectl explain and field validation against the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });

	it('explain pod.spec.containers lists the container fields with their types', async () => {
		const r = await run('explain', 'pod.spec.containers');
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/^KIND:\s+Pod$/m);
		expect(r.stdout).toMatch(/^FIELD: containers <\[\]Container>$/m);
		expect(r.stdout).toMatch(/^ {2}image\s+<string>$/m);
		expect(r.stdout).toMatch(/^ {2}resources\s+<ResourceRequirements>$/m);
		expect(r.stdout).toMatch(/^ {2}volumeMounts\s+<\[\]VolumeMount>$/m);
		const deep = await run('explain', 'pod.spec.containers.securityContext.privileged');
		expect(deep.stdout).toMatch(/FIELD: privileged <boolean>/);
		const lease = await run('explain', 'lease.spec.renewTime');
		expect(lease.stdout).toMatch(/FIELD: renewTime <string>/);
		expect(lease.stdout).toContain(
			'MicroTime is version of Time with microsecond level precision.',
		);
		const missing = await run('explain', 'pod.spec.nosuch');
		expect(missing.code).not.toBe(0);
		expect(missing.stderr).toContain('field "nosuch" does not exist');
	});

	it('create -f with an unknown field fails as on a real server (kubectl sends Strict)', async () => {
		const file = join(env.sim.dir, 'typo.yaml');
		await writeFile(
			file,
			'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: typo}\ndata: {a: "1"}\ndatta: {b: "2"}\n',
		);
		const r = await run('create', '-f', file, '-n', NS);
		expect(r.code).toBe(1);
		expect(r.stderr.trim()).toBe(
			`Error from server (BadRequest): error when creating "${file}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datta"`,
		);
		expect(env.cluster.store.get('configmaps', NS, 'typo')).toBeUndefined();
		const warn = await run('create', '--validate=warn', '-f', file, '-n', NS);
		expect(warn.code).toBe(0);
		expect(warn.stderr).toContain('Warning: unknown field "datta"');
		expect(env.cluster.store.get('configmaps', NS, 'typo')).not.toHaveProperty('datta');
	});
});
