/**
 * The gradual rollout: a 20-member pool with 2 claimed gets a new image with
 * --max-unavailable 3; at no write in the cluster's timeline are more than 3 unclaimed
 * members unavailable; the rollout converges; the claimed members stay until released.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPoolController } from '../../source/controller/pool-controller.js';
import { apply, claim, createEngine, readDefinition, release } from '../../source/engine/index.js';
import { startResilientWatch } from '../../source/kube/resilient-watch.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { parseStatus } from '../../source/pool/status.js';
import { ctpool } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

function pod(name: string): Promise<KubeObject | undefined> {
	return c.api.get('pods', name);
}

function ready(p: KubeObject | undefined): boolean {
	const status = p?.status as { conditions?: Array<{ type: string; status: string }> } | undefined;
	return (
		p !== undefined &&
		!p.metadata.deletionTimestamp &&
		(status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True')
	);
}

describe('a rollout', { timeout: 120_000 }, () => {
	it('replaces at most maxUnavailable unclaimed members at once, converges, and keeps the claimed ones', async () => {
		const ctx = c.context();
		const size = 20;
		const members = Array.from({ length: size }, (_, i) => `roll-${i + 1}`);
		await apply(ctx, 'roll', poolSpec({ size }));
		await waitReady(ctx, 'roll', size);
		const alice = await claim(ctx, 'roll', 'alice@example.com');
		const bob = await claim(ctx, 'roll', 'bob@example.com');
		const claimed = new Map<string, string | undefined>();
		for (const m of [alice.member, bob.member]) claimed.set(m, (await pod(m))?.metadata.uid);
		const unclaimed = members.filter((m) => !claimed.has(m));

		// the timeline: after every change of a pod in the cluster (a watch hears each one, in
		// the order the cluster made them), how many unclaimed members are down
		const timeline: number[] = [];
		const pods = new Map<string, KubeObject>();
		const down = () => unclaimed.filter((m) => !ready(pods.get(m))).length;
		let listed = false;
		const recording = startResilientWatch(
			c.kube,
			{ plural: 'pods', kind: 'Pod', apiVersion: 'v1', namespace: c.ns },
			{ labelSelector: 'corral.dev/vdi-ct-pool=roll' },
			{
				onReset(objects) {
					pods.clear();
					for (const o of objects as KubeObject[]) pods.set(o.metadata.name, o);
					timeline.push(down());
					listed = true;
				},
				onChange(op, object) {
					const o = object as KubeObject;
					if (op === 'delete') pods.delete(o.metadata.name);
					else pods.set(o.metadata.name, o);
					timeline.push(down());
				},
				onState() {},
			},
		);
		await waitFor(() => listed, 'the pods of roll listed');
		const mark = c.mark();
		const pools = startPoolController({
			kube: c.kube,
			namespace: c.ns,
			pool: 'roll',
			resyncMs: 60_000,
			settleMs: 50,
			engine: createEngine(c.kube, { actor: 'reconciler', deleteTimeoutMs: 20_000 }),
		});
		try {
			const r = await ctpool([
				'apply',
				'roll',
				'--image',
				'ghcr.io/example/desktop:2',
				'--max-unavailable',
				'3',
				...c.kc,
			]);
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
			expect(r.stdout).toMatch(/rolling \d+\/18 to ghcr\.io\/example\/desktop:2/);
			const definition = await readDefinition(ctx, 'roll');
			expect(definition.spec.maxUnavailable).toBe(3);
			const target = sourceHash(sourceFields(definition.spec));
			// the reconciler's metrics show the rollout while it runs
			await waitFor(
				async () =>
					(await pools.metrics.registry.metrics()).includes(
						`ctpool_pool_rollout_total{namespace="${c.ns}",pool="roll"} 18`,
					) || undefined,
				'the rollout in the metrics',
			);

			await waitFor(
				async () => {
					const now = await c.api.byName('pods');
					return (
						unclaimed.every(
							(m) =>
								ready(now.get(m)) &&
								now.get(m)?.metadata.labels?.['corral.dev/vdi-ct-source'] === target,
						) || undefined
					);
				},
				{ what: 'every unclaimed member on the new image and Ready', timeoutMs: 90_000 },
			);
			await waitFor(async () => {
				const status = parseStatus((await readDefinition(ctx, 'roll')).configMap.data?.status);
				return (status !== null && status.rollout === undefined) || undefined;
			}, 'the rollout gone from the status');
		} finally {
			recording.stop();
			await pools.stop();
		}
		expect(Math.max(...timeline)).toBe(3);
		// each unclaimed member replaced once, no claimed one touched
		const podDeletes = (await c.ctpoolMutations(mark))
			.filter((m) => m.resource === 'pods' && m.verb === 'delete' && m.changed)
			.map((m) => m.name);
		expect(podDeletes.sort()).toEqual([...unclaimed].sort());
		for (const [m, uid] of claimed) expect((await pod(m))?.metadata.uid).toBe(uid);

		// the claimed ones move to the new image when released
		await release(ctx, 'roll', alice.member, 'alice@example.com');
		const after = await pod(alice.member);
		expect(after?.metadata.uid).not.toBe(claimed.get(alice.member));
		expect(after?.metadata.labels?.['corral.dev/vdi-ct-source']).toBe(
			sourceHash(sourceFields(poolSpec({ image: 'ghcr.io/example/desktop:2' }))),
		);
	});
});
