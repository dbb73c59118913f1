/**
 * `kubectl drain` against the simulated cluster: cordon, evictions through the policy/v1
 * Eviction subresource (protobuf from kubectl, JSON from others), the wait for the pods to go,
 * and a cordoned node that gets no new pods.
 */

import { beforeAll, expect, it } from 'vitest';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import { simFetch, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';
import { isReady, NS, pod, podManifest } from './behaviour-support.js';

const sim = withSim();

function pinned(name: string, node: string) {
	const p = podManifest(name);
	(p.spec as Record<string, unknown>).nodeName = node;
	return p;
}

beforeAll(async () => {
	const { store } = sim.cluster;
	for (const name of ['d-1', 'd-2']) store.create('pods', pinned(name, 'node-a'));
	store.create('pods', pinned('e-1', 'node-b'));
	await waitFor(() => ['d-1', 'd-2', 'e-1'].every((n) => isReady(pod(store, n))), {
		what: 'the pods Ready',
		wakeOn: store,
	});
});

it('evicts with a JSON Eviction, and answers 404 for a missing pod', async () => {
	const evict = (name: string, query = '') =>
		simFetch(sim.cluster, `/api/v1/namespaces/${NS}/pods/${name}/eviction${query}`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({
				apiVersion: 'policy/v1',
				kind: 'Eviction',
				metadata: { name, namespace: NS },
				deleteOptions: { gracePeriodSeconds: 0 },
			}),
		});
	const missing = await evict('ghost');
	expect(missing.status).toBe(404);
	expect((missing.json() as { message: string }).message).toBe('pods "ghost" not found');
	const { store } = sim.cluster;
	store.create('pods', pinned('j-1', 'node-b'));
	await waitFor(() => isReady(pod(store, 'j-1')), { what: 'j-1 Ready', wakeOn: store });
	const dry = await evict('j-1', '?dryRun=All');
	expect(dry.status).toBe(201);
	expect(store.get('pods', NS, 'j-1')?.metadata.deletionTimestamp).toBeUndefined();
	const ok = await evict('j-1');
	expect(ok.status).toBe(201);
	expect(ok.json()).toEqual({
		kind: 'Status',
		apiVersion: 'v1',
		metadata: {},
		status: 'Success',
		code: 201,
	});
	await waitFor(() => store.get('pods', NS, 'j-1') === undefined, {
		what: 'j-1 gone',
		wakeOn: store,
	});
});

describeKubectl('kubectl drain against the simulated cluster', () => {
	const run = (...args: string[]) =>
		kubectl(args, { kubeconfig: sim.kubeconfigPath, timeoutMs: 120_000 });

	it('refuses pods without a controller unless --force, as kubectl does on a real cluster', async () => {
		const r = await run('drain', 'node-a', '--ignore-daemonsets', '--delete-emptydir-data');
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain(
			'cannot delete Pods that declare no controller (use --force to override): corral/d-1, corral/d-2',
		);
		// The cordon happened before the refusal, as with a real cluster.
		expect(sim.cluster.store.get('nodes', undefined, 'node-a')?.spec).toMatchObject({
			unschedulable: true,
		});
	});

	it('cordons, evicts every pod on the node, waits for them to go, and the node takes no new pods', async () => {
		const r = await run(
			'drain',
			'node-a',
			'--ignore-daemonsets',
			'--delete-emptydir-data',
			'--force',
			'--timeout=100s',
		);
		expect(r.stderr).not.toContain('error');
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('evicting pod corral/d-1');
		expect(r.stdout).toContain('pod/d-1 evicted');
		expect(r.stdout).toContain('pod/d-2 evicted');
		expect(r.stdout).toContain('node/node-a drained');
		const { store } = sim.cluster;
		expect(store.get('pods', NS, 'd-1')).toBeUndefined();
		expect(store.get('pods', NS, 'd-2')).toBeUndefined();
		expect(store.get('pods', NS, 'e-1')).toBeDefined();
		const evictions = sim.cluster.audit
			.requests()
			.filter((q) => q.subresource === 'eviction' && q.who === 'kubectl');
		expect(evictions.map((q) => [q.name, q.code])).toEqual(
			expect.arrayContaining([
				['d-1', 201],
				['d-2', 201],
			]),
		);
		const nodes = await run('get', 'node', 'node-a');
		expect(nodes.stdout).toMatch(/node-a\s+Ready,SchedulingDisabled/);
		for (let i = 0; i < 4; i++) store.create('pods', podManifest(`after-${i}`));
		await waitFor(() => [0, 1, 2, 3].every((i) => pod(store, `after-${i}`)?.spec?.nodeName), {
			what: 'the new pods scheduled',
			wakeOn: store,
		});
		for (let i = 0; i < 4; i++) expect(pod(store, `after-${i}`)?.spec?.nodeName).not.toBe('node-a');
		const un = await run('uncordon', 'node-a');
		expect(un.stdout.trim()).toBe('node/node-a uncordoned');
	});
});
