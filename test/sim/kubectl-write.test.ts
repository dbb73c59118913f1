import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';

describeKubectl('kubectl writes against the simulated cluster', () => {
	const env = withSim();
	const run = (...args: string[]) => kubectl(args, { kubeconfig: env.kubeconfigPath });
	const phase = (name: string) =>
		(env.cluster.store.get('pods', NS, name)?.status as { phase?: string } | undefined)?.phase;

	it('create -f works with default validation (no --validate=false)', async () => {
		const file = join(env.sim.dir, 'objects.yaml');
		await writeFile(
			file,
			[
				'apiVersion: v1',
				'kind: Pod',
				'metadata:',
				'  name: made-1',
				'  labels: {pool: made}',
				'spec:',
				'  containers:',
				'  - name: ct',
				'    image: ghcr.io/example/desktop:1',
				'    command: [sleep, infinity]',
				'---',
				'apiVersion: coordination.k8s.io/v1',
				'kind: Lease',
				'metadata: {name: corral-vdi-ct-made-1}',
				'spec: {holderIdentity: bob@example.com, leaseDurationSeconds: 3600}',
				'---',
				'apiVersion: v1',
				'kind: ConfigMap',
				'metadata: {name: made-cm}',
				'data: {a: "1"}',
				'',
			].join('\n'),
		);
		const r = await run('create', '-f', file, '-n', NS);
		expect(r.stderr).toBe('');
		expect(r.stdout.split('\n').filter(Boolean)).toEqual([
			'pod/made-1 created',
			'lease.coordination.k8s.io/corral-vdi-ct-made-1 created',
			'configmap/made-cm created',
		]);
		expect(env.cluster.store.get('leases', NS, 'corral-vdi-ct-made-1')?.spec).toMatchObject({
			holderIdentity: 'bob@example.com',
		});
		const again = await run('create', '-f', file, '-n', NS);
		expect(again.code).not.toBe(0);
		expect(again.stderr).toContain('pods "made-1" already exists');
		const requests = env.cluster.audit.requests().map((q) => q.path);
		expect(requests).toContain('/openapi/v3');
	});

	it('apply creates, then patches a change without warnings', async () => {
		const file = join(env.sim.dir, 'applied.yaml');
		const manifest = (tier: string) =>
			`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels: {tier: ${tier}}\ndata: {a: "1"}\n`;
		await writeFile(file, manifest('gold'));
		const first = await run('apply', '-f', file, '-n', NS);
		expect(first.stdout.trim()).toBe('configmap/applied created');
		await writeFile(file, manifest('silver'));
		const second = await run('apply', '-f', file, '-n', NS);
		expect(second.stdout.trim()).toBe('configmap/applied configured');
		expect(second.stderr).toBe('');
		expect(env.cluster.store.get('configmaps', NS, 'applied')?.metadata.labels).toEqual({
			tier: 'silver',
		});
		const third = await run('apply', '-f', file, '-n', NS);
		expect(third.stdout.trim()).toBe('configmap/applied unchanged');
	});

	it('create of an invalid pod shows the 422 message', async () => {
		const file = join(env.sim.dir, 'bad.yaml');
		await writeFile(
			file,
			'apiVersion: v1\nkind: Pod\nmetadata: {name: bad-1}\nspec: {containers: []}\n',
		);
		const r = await run('create', '-f', file, '-n', NS);
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain('Pod "bad-1" is invalid: spec.containers: Required value');
	});

	it('label and annotate patch the object (and remove keys with k-)', async () => {
		env.cluster.store.create('configmaps', {
			apiVersion: 'v1',
			kind: 'ConfigMap',
			metadata: { name: 'labelled', namespace: NS, labels: { keep: 'yes' } },
		});
		expect((await run('label', 'cm', 'labelled', 'tier=gold', '-n', NS)).stdout.trim()).toBe(
			'configmap/labelled labeled',
		);
		expect(
			(await run('annotate', 'cm', 'labelled', 'note=hello world', '-n', NS)).stdout.trim(),
		).toBe('configmap/labelled annotated');
		let cm = env.cluster.store.get('configmaps', NS, 'labelled')!;
		expect(cm.metadata.labels).toEqual({ keep: 'yes', tier: 'gold' });
		expect(cm.metadata.annotations).toEqual({ note: 'hello world' });
		const clash = await run('label', 'cm', 'labelled', 'tier=silver', '-n', NS);
		expect(clash.code).not.toBe(0);
		expect(clash.stderr).toContain("'tier' already has a value (gold)");
		await run('label', 'cm', 'labelled', 'tier-', '-n', NS);
		cm = env.cluster.store.get('configmaps', NS, 'labelled')!;
		expect(cm.metadata.labels).toEqual({ keep: 'yes' });
		const mutations = env.cluster.audit
			.mutations()
			.filter((m) => m.name === 'labelled' && m.who === 'kubectl');
		expect(mutations.map((m) => m.verb)).toEqual(['patch', 'patch', 'patch']);
	});

	it('delete returns once the pod is really gone (the kubelet finishes the graceful deletion)', async () => {
		env.cluster.store.create('pods', {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name: 'doomed', namespace: NS },
			spec: {
				containers: [{ name: 'ct', image: 'ghcr.io/example/desktop:1' }],
				terminationGracePeriodSeconds: 5,
			},
		});
		await waitFor(() => phase('doomed') === 'Running', { what: 'doomed Running' });
		const seen: string[] = [];
		const stop = env.cluster.store.watch('pods', { namespace: NS }, (e) => {
			if (e.object.metadata.name === 'doomed') seen.push(e.type);
		});
		try {
			const r = await run('delete', 'pod', 'doomed', '-n', NS);
			expect(r.stdout.trim()).toBe('pod "doomed" deleted');
			expect(r.code).toBe(0);
			// by the time kubectl returns, the pod is gone from the store
			expect(env.cluster.store.get('pods', NS, 'doomed')).toBeUndefined();
			expect(seen[0]).toBe('MODIFIED');
			expect(seen.at(-1)).toBe('DELETED');
		} finally {
			stop();
		}
	});

	it('delete of a missing object prints the NotFound message', async () => {
		const r = await run('delete', 'lease', 'nope', '-n', NS);
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain('leases.coordination.k8s.io "nope" not found');
	});
});
