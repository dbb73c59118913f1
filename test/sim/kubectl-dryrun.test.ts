import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';

const NS = 'corral';

describeKubectl('kubectl --dry-run=server and diff change nothing', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });
	const manifest = (name: string, tier: string) =>
		`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${NS}\n  labels: {tier: ${tier}}\ndata: {a: "1"}\n`;

	/** Runs kubectl and checks that the cluster's revision and audit mutations did not move. */
	async function unchanged(...args: string[]) {
		const rev = env.cluster.store.revision();
		const mark = env.cluster.audit.mark();
		const r = await run(...args);
		expect(env.cluster.store.revision()).toBe(rev);
		expect(env.cluster.audit.since(mark).mutations).toEqual([]);
		return r;
	}

	it('diff shows a change and exits 1, exits 0 with nothing to show, and stores nothing', async () => {
		const file = join(env.sim.dir, 'diffed.yaml');
		await writeFile(file, manifest('diffed', 'gold'));
		expect((await run('apply', '-f', file)).code).toBe(0);
		const same = await unchanged('diff', '-f', file);
		expect(same.stderr).toBe('');
		expect(same.code).toBe(0);
		expect(same.stdout).toBe('');
		await writeFile(file, manifest('diffed', 'silver'));
		const changed = await unchanged('diff', '-f', file);
		expect(changed.code).toBe(1);
		expect(changed.stdout).toMatch(/^-\s+tier: gold$/m);
		expect(changed.stdout).toMatch(/^\+\s+tier: silver$/m);
		expect(env.cluster.store.get('configmaps', NS, 'diffed')?.metadata.labels).toEqual({
			tier: 'gold',
		});
		const fresh = join(env.sim.dir, 'fresh.yaml');
		await writeFile(fresh, manifest('not-yet', 'gold'));
		const added = await unchanged('diff', '-f', fresh);
		expect(added.code).toBe(1);
		expect(added.stdout).toMatch(/^\+\s+name: not-yet$/m);
		expect(env.cluster.store.get('configmaps', NS, 'not-yet')).toBeUndefined();
	});

	it('--dry-run=server on create, apply, patch, label, annotate, replace and delete', async () => {
		const file = join(env.sim.dir, 'dry.yaml');
		await writeFile(file, manifest('dry', 'gold'));
		expect((await run('create', '--save-config', '-f', file)).code).toBe(0);
		const other = join(env.sim.dir, 'dry-new.yaml');
		await writeFile(other, manifest('dry-new', 'gold'));
		const changed = join(env.sim.dir, 'dry-changed.yaml');
		await writeFile(changed, manifest('dry', 'silver'));
		const cases: [string[], RegExp][] = [
			[['create', '-f', other], /^configmap\/dry-new created \(server dry run\)$/],
			[['apply', '-f', other], /^configmap\/dry-new created \(server dry run\)$/],
			[['apply', '-f', changed], /^configmap\/dry configured \(server dry run\)$/],
			[
				['patch', 'configmap', 'dry', '-n', NS, '-p', '{"data":{"a":"2"}}'],
				// kubectl 1.32's patch prints no dry-run suffix
				/^configmap\/dry patched$/,
			],
			[
				['label', 'configmap', 'dry', '-n', NS, 'x=y'],
				/^configmap\/dry labeled \(server dry run\)$/,
			],
			[
				['annotate', 'configmap', 'dry', '-n', NS, 'x=y'],
				/^configmap\/dry annotated \(server dry run\)$/,
			],
			[['replace', '-f', changed], /^configmap\/dry replaced \(server dry run\)$/],
			[['delete', 'configmap', 'dry', '-n', NS], /^configmap "dry" deleted \(server dry run\)$/],
		];
		for (const [args, out] of cases) {
			const r = await unchanged(...args, '--dry-run=server');
			expect({ args, stderr: r.stderr, code: r.code }).toEqual({ args, stderr: '', code: 0 });
			expect(r.stdout.trim()).toMatch(out);
		}
		const live = env.cluster.store.get('configmaps', NS, 'dry');
		expect(live?.metadata.labels).toEqual({ tier: 'gold' });
		expect(live?.data).toEqual({ a: '1' });
		expect(live?.metadata.annotations?.x).toBeUndefined();
		expect(env.cluster.store.get('configmaps', NS, 'dry-new')).toBeUndefined();
	});
});
