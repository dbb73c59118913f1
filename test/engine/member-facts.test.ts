/** The reads behind the console's hints, against the test cluster: node room and a crash's last log lines. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, readLastLogLines, readNodeRooms, readPool } from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { freeOn } from '../../source/pool/node-room.js';
import { itSim, startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

const GI = 2 ** 30;

describe('hint facts', () => {
	it('reads the room on every node: allocatable less the requests of the pods bound to it', async () => {
		const ctx = c.context();
		await apply(ctx, 'room', poolSpec({ size: 2, cpu: '3', memory: '1Gi' }));
		await waitReady(ctx, 'room', 2);
		const rooms = await readNodeRooms(ctx);
		expect(rooms.map((r) => r.name)).toEqual(['node-a', 'node-b', 'node-c']);
		for (const r of rooms) expect(r.allocatable).toEqual({ milliCpu: 64_000, memory: 32 * GI });
		const used = rooms.reduce(
			(t, r) => ({ cpu: t.cpu + r.requested.milliCpu, mem: t.mem + r.requested.memory }),
			{ cpu: 0, mem: 0 },
		);
		// the pool's two members (and whatever other tests of this file run)
		expect(used.cpu).toBeGreaterThanOrEqual(6000);
		expect(used.mem).toBeGreaterThanOrEqual(2 * GI);
		const pod = (await c.api.get('pods', 'room-1')) as { spec?: { nodeName?: string } } | undefined;
		const node = pod?.spec?.nodeName;
		expect(node).toBeDefined();
		const mine = rooms.find((r) => r.name === node)!;
		expect(freeOn(mine).milliCpu).toBeLessThanOrEqual(61_000);
	});

	it('says which permission is missing when the nodes may not be listed', async () => {
		// A ServiceAccount that may list the pods of every namespace but not the nodes.
		const name = 'no-nodes';
		const kubeconfig = await c.grant(name, []);
		const bind = `${c.ns}-${name}`;
		await c.api.put('clusterroles', {
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'ClusterRole',
			metadata: { name: bind },
			rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
		});
		await c.api.put('clusterrolebindings', {
			apiVersion: 'rbac.authorization.k8s.io/v1',
			kind: 'ClusterRoleBinding',
			metadata: { name: bind },
			roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: bind },
			subjects: [{ kind: 'ServiceAccount', name, namespace: c.ns }],
		});
		try {
			const ctx = c.context();
			ctx.kube = await loadKube({ kubeconfig });
			// the pods are allowed (the binding may take a moment to reach the authorizer)
			await waitFor(
				() => ctx.kube.core.listPodForAllNamespaces({ limit: 1 }).then(() => true),
				'the pods of every namespace listed',
			);
			await expect(readNodeRooms(ctx)).rejects.toThrow(
				/forbidden: cannot list nodes \(ask for the "list" permission on nodes\)/,
			);
		} finally {
			await c.api.delete('clusterrolebindings', bind);
			await c.api.delete('clusterroles', bind);
		}
	});

	itSim(
		'reads the last log lines of the run that crashed',
		'a container that crashes: kwok runs every container for good',
		async () => {
			const ctx = c.context();
			await apply(ctx, 'crashy', poolSpec({ size: 1 }));
			await waitReady(ctx, 'crashy', 1);
			c.sim.controllers.crash(c.ns, 'crashy-1');
			await waitFor(async () => {
				const snap = await readPool(ctx, 'crashy');
				return snap.members[0]?.message.startsWith('CrashLoopBackOff');
			}, 'CrashLoopBackOff');
			const lines = await readLastLogLines(ctx, 'crashy-1', 5);
			expect(lines.at(-1)).toBe(
				'fatal: cannot write to /data: Input/output error; exiting with status 1',
			);
			expect(lines.length).toBeLessThanOrEqual(5);
		},
	);

	it('names the pod log it could not read', async () => {
		const ctx = c.context();
		await expect(readLastLogLines(ctx, 'nobody-1', 5)).rejects.toThrow(/pods\/log/);
	});
});
