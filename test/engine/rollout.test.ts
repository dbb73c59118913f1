/**
 * The gradual rollout: a 20-member pool with 2 claimed gets a new image with
 * --max-unavailable 3; at no write in the cluster's timeline are more than 3 unclaimed
 * members unavailable; the rollout converges; the claimed members stay until released.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPoolController } from '../../source/controller/pool-controller.js';
import { apply, claim, createEngine, readDefinition, release } from '../../source/engine/index.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { parseStatus } from '../../source/pool/status.js';
import type { SimObject } from '../../source/sim/store-api.js';
import { ctpool } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

function pod(name: string): SimObject | undefined {
	return c.sim.store.get('pods', 'corral', name);
}

function ready(p: SimObject | undefined): boolean {
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
		const claimed = new Map([alice.member, bob.member].map((m) => [m, pod(m)!.metadata.uid]));
		const unclaimed = members.filter((m) => !claimed.has(m));

		// the timeline: after every write the cluster takes, how many unclaimed members are down
		const timeline: number[] = [];
		const stopRecording = c.sim.store.onWrite(() => {
			timeline.push(unclaimed.filter((m) => !ready(pod(m))).length);
		});
		const mark = c.mark();
		const pools = startPoolController({
			kube: c.kube,
			namespace: 'corral',
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
				'--kubeconfig',
				c.sim.kubeconfigPath,
			]);
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
			expect(r.stdout).toMatch(/rolling \d+\/18 to source [0-9a-f]{8}…/);
			const definition = await readDefinition(ctx, 'roll');
			expect(definition.spec.maxUnavailable).toBe(3);
			const target = sourceHash(sourceFields(definition.spec));
			// the reconciler's metrics show the rollout while it runs
			await waitFor(
				async () =>
					(await pools.metrics.registry.metrics()).includes(
						'ctpool_pool_rollout_total{namespace="corral",pool="roll"} 18',
					) || undefined,
				'the rollout in the metrics',
			);

			await waitFor(
				() =>
					unclaimed.every(
						(m) =>
							ready(pod(m)) && pod(m)?.metadata.labels?.['corral.dev/vdi-ct-source'] === target,
					) || undefined,
				{ what: 'every unclaimed member on the new image and Ready', timeoutMs: 90_000 },
			);
			await waitFor(async () => {
				const status = parseStatus((await readDefinition(ctx, 'roll')).configMap.data?.status);
				return (status !== null && status.rollout === undefined) || undefined;
			}, 'the rollout gone from the status');
		} finally {
			stopRecording();
			await pools.stop();
		}
		expect(Math.max(...timeline)).toBe(3);
		// each unclaimed member replaced once, no claimed one touched
		const podDeletes = (await c.ctpoolMutations(mark))
			.filter((m) => m.resource === 'pods' && m.verb === 'delete' && m.changed)
			.map((m) => m.name);
		expect(podDeletes.sort()).toEqual([...unclaimed].sort());
		for (const [m, uid] of claimed) expect(pod(m)?.metadata.uid).toBe(uid);

		// the claimed ones move to the new image when released
		await release(ctx, 'roll', alice.member, 'alice@example.com');
		const after = pod(alice.member);
		expect(after?.metadata.uid).not.toBe(claimed.get(alice.member));
		expect(after?.metadata.labels?.['corral.dev/vdi-ct-source']).toBe(
			sourceHash(sourceFields(poolSpec({ image: 'ghcr.io/example/desktop:2' }))),
		);
	});
});
