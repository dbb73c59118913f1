/**
 * Issue 12, finding 6: concurrent claims in one process (a broker embedding the engine), any
 * mix of identities and duplicates, give exactly the answers the same claims would give one
 * after another in some order. Property test against the simulated cluster, small sizes.
 *
 * One after another, on a pool of n free members and k distinct identities: the first
 * min(k, n) identities to come get distinct members, the others "no free members"; every call
 * of one identity gives the same answer. Which identities win depends on the order, so that
 * is the property: same answer per identity, distinct members, exactly min(k, n) winners, and
 * the Leases in the cluster say the same.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, watchPoolForClaims } from '../../source/engine/index.js';
import { PoolError } from '../../source/pool/errors.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { resourcePath } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

let pools = 0;

/**
 * The run's fast-check options: CLAIM_PROPERTY_SEED (and CLAIM_PROPERTY_PATH) replay a run a
 * report names, e.g. CLAIM_PROPERTY_SEED=-1541586482; CLAIM_PROPERTY_RUNS sets the number of
 * runs (15 unless told).
 */
function replay(): { numRuns: number; seed?: number; path?: string } {
	const seed = process.env.CLAIM_PROPERTY_SEED;
	const path = process.env.CLAIM_PROPERTY_PATH;
	return {
		numRuns: Number(process.env.CLAIM_PROPERTY_RUNS) || 15,
		...(seed ? { seed: Number(seed) } : {}),
		...(path ? { path } : {}),
	};
}

/** Leases of the pool by holder. */
async function leasesByHolder(pool: string): Promise<Map<string, string[]>> {
	const out = new Map<string, string[]>();
	for (const l of await c.api.list('leases', {
		labelSelector: `corral.dev/vdi-ct-pool=${pool}`,
	})) {
		const holder = (l.spec as { holderIdentity?: string }).holderIdentity ?? '';
		out.set(holder, [
			...(out.get(holder) ?? []),
			l.metadata.labels?.['corral.dev/vdi-ct-member'] ?? '',
		]);
	}
	return out;
}

/**
 * Removes every object of a pool at once (pods without a grace period), so that the runs do
 * not pile up members on the nodes.
 */
async function removePool(pool: string): Promise<void> {
	for (const resource of ['pods', 'persistentvolumeclaims', 'leases', 'configmaps']) {
		const answer = await c.api.request('DELETE', resourcePath(resource, c.ns), {
			query: { labelSelector: `corral.dev/vdi-ct-pool=${pool}` },
			body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
		});
		expect(answer.status).toBe(200);
	}
}

/** The property: concurrent claims through one engine, with or without its watch-fed cache. */
function sameAsInSequence(cached: boolean) {
	return fc.asyncProperty(
		fc.integer({ min: 1, max: 5 }),
		fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), {
			minLength: 1,
			maxLength: 12,
		}),
		async (size, who) => {
			const pool = `cc${++pools}`;
			const ctx = c.context();
			await apply(ctx, pool, poolSpec({ size }));
			// a long-running engine: the claims answer from its watch-fed cache of the pool
			const cache = cached ? watchPoolForClaims(ctx, pool) : undefined;
			if (cache) await waitFor(() => cache.synced(), "the pool's claim cache");
			const answers = await Promise.all(
				who.map((w) =>
					claim(ctx, pool, `${w}@example.com`).then(
						(r) => r.member,
						(err: unknown) => {
							if (err instanceof PoolError && err.kind === 'no-free') return 'no-free';
							throw err;
						},
					),
				),
			);
			const byIdentity = new Map<string, Set<string>>();
			for (const [i, w] of who.entries())
				byIdentity.set(w, (byIdentity.get(w) ?? new Set()).add(answers[i]!));
			// every call of one identity: the same answer
			for (const [w, set] of byIdentity) expect([w, [...set]]).toEqual([w, [...set].slice(0, 1)]);
			const won = [...byIdentity.entries()]
				.map(([w, set]) => [w, [...set][0]!] as const)
				.filter(([, m]) => m !== 'no-free');
			// exactly min(k, n) winners, on distinct members
			expect(won.length).toBe(Math.min(byIdentity.size, size));
			expect(new Set(won.map(([, m]) => m)).size).toBe(won.length);
			// the cluster agrees: one Lease per winner, on the member answered
			const leases = await leasesByHolder(pool);
			expect(leases.size).toBe(won.length);
			for (const [w, m] of won) expect(leases.get(`${w}@example.com`)).toEqual([m]);
			cache?.stop();
			await removePool(pool);
		},
	);
}

describe('concurrent claims in one process', () => {
	it('answer as the same claims one after another would', async () => {
		await fc.assert(sameAsInSequence(false), replay());
	}, 120_000);

	it("answer so from the engine's watch-fed cache too (a broker, the console)", async () => {
		await fc.assert(sameAsInSequence(true), replay());
	}, 120_000);
});
