import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { simFetch, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';
const NOT_FOUND = 'the server could not find the requested resource';

describeKubectl('what the simulated cluster does not do fails visibly', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });

	beforeAll(async () => {
		const r = await run('run', 'box', '-n', NS, '--image=busybox:1', '--', 'sleep', 'infinity');
		expect(r.code).toBe(0);
		await waitFor(
			() =>
				(env.cluster.store.get('pods', NS, 'box')?.status as { phase?: string })?.phase ===
				'Running',
			{ what: 'pod box running' },
		);
	});

	it('port-forward: 404, as a server that does not serve pods/portforward', async () => {
		const r = await run('port-forward', '-n', NS, 'pod/box', '18080:80');
		expect(r.code).toBe(1);
		expect(r.stderr.trim()).toBe(`error: error upgrading connection: ${NOT_FOUND}`);
		const raw = await simFetch(env.cluster, `/api/v1/namespaces/${NS}/pods/box/portforward`, {
			method: 'POST',
		});
		expect(raw.status).toBe(404);
	});

	it('attach: 404, and discovery does not list pods/attach', async () => {
		const r = await run('attach', '-n', NS, 'box');
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(`Error from server (NotFound): ${NOT_FOUND}`);
		const res = await simFetch(env.cluster, '/api/v1');
		expect(res.text).not.toContain('pods/attach');
	});

	it('cp: fails both ways (no tar in the simulated containers), copying nothing', async () => {
		const src = join(env.sim.dir, 'in.txt');
		await writeFile(src, 'hello\n');
		const up = await run('cp', src, `${NS}/box:/data/in.txt`);
		expect(up.code).toBe(1);
		expect(up.stderr).toContain('exec: "tar": executable file not found in $PATH');
		const dest = join(env.sim.dir, 'out');
		await mkdir(dest);
		const down = await run('cp', `${NS}/box:/etc/hostname`, join(dest, 'hostname'));
		expect(down.code).toBe(1);
		expect(down.stderr).toContain('exec: "tar": executable file not found in $PATH');
		expect(await readdir(dest)).toEqual([]);
	});

	it('proxy: 404 for pods, services and nodes', async () => {
		for (const path of [
			`/api/v1/namespaces/${NS}/pods/box/proxy/`,
			`/api/v1/namespaces/${NS}/services/web:80/proxy/`,
			'/api/v1/nodes/node-1/proxy/',
		]) {
			const r = await run('get', '--raw', path);
			expect({ path, code: r.code, stderr: r.stderr.trim() }).toEqual({
				path,
				code: 1,
				stderr: `Error from server (NotFound): ${NOT_FOUND}`,
			});
		}
	});

	it('scale: 404 (no scale subresource), the Deployment unchanged', async () => {
		const file = join(env.sim.dir, 'deploy.yaml');
		await writeFile(
			file,
			`apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ${NS}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx:1.27}]}\n`,
		);
		expect((await run('apply', '-f', file)).code).toBe(0);
		const r = await run('scale', '-n', NS, 'deployment/web', '--replicas=3');
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(`Error from server (NotFound): ${NOT_FOUND}`);
		expect(env.cluster.store.get('deployments', NS, 'web')?.spec).toMatchObject({ replicas: 1 });
	});

	it('server-side apply: 415, which kubectl reports as not available, storing nothing', async () => {
		const file = join(env.sim.dir, 'ssa.yaml');
		await writeFile(
			file,
			`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: ${NS}}\n`,
		);
		const rev = env.cluster.store.revision();
		const r = await run('apply', '--server-side', '-f', file);
		expect(r.code).toBe(1);
		expect(r.stderr.trim()).toBe(
			'error: Server-side apply not available on the server: (415: Unsupported Media Type)',
		);
		expect(env.cluster.store.revision()).toBe(rev);
	});
});
