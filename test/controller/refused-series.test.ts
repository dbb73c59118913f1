/**
 * Issue 22, finding 7: ctpool_claims_refused_total has series only for pools whose definition
 * is seen, drops a pool's series when its definition goes, and holds at most
 * REFUSED_SERIES_MAX of them, whatever Events anyone writes.
 */

import { describe, expect, it } from 'vitest';
import { createReconcilerMetrics, REFUSED_SERIES_MAX } from '../../source/controller/metrics.js';
import { PoolCache, poolKey } from '../../source/controller/pool-cache.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap } from '../tui/fixtures.js';

async function series(text: Promise<string>): Promise<string[]> {
	return (await text).split('\n').filter((l) => l.startsWith('ctpool_claims_refused_total{'));
}

describe('the refused-claims series', () => {
	it('exist only for defined pools, go with their definition, and are capped', async () => {
		const cache = new PoolCache();
		const metrics = createReconcilerMetrics(cache, () => 0);
		metrics.countingRefusals(true);
		const desk = configMap('desk', poolSpec());
		cache.apply([{ kind: 'configmaps', op: 'upsert', object: desk }]);
		metrics.claimRefused(poolKey('corral', 'desk'), 2);
		metrics.claimRefused(poolKey('corral', 'ghost'), 1);
		metrics.claimRefused(poolKey('corral', 'desk'), Number.POSITIVE_INFINITY);
		expect(await series(metrics.registry.metrics())).toEqual([
			'ctpool_claims_refused_total{namespace="corral",pool="desk"} 2',
		]);

		const delta = cache.apply([{ kind: 'configmaps', op: 'delete', object: desk }]);
		expect(delta.removed).toEqual([poolKey('corral', 'desk')]);
		for (const key of delta.removed) metrics.forget(key);
		expect(await series(metrics.registry.metrics())).toEqual([]);

		const many = REFUSED_SERIES_MAX + 50;
		cache.apply(
			Array.from({ length: many }, (_, i) => ({
				kind: 'configmaps' as const,
				op: 'upsert' as const,
				object: configMap(`p${i}`, poolSpec()),
			})),
		);
		for (let i = 0; i < many; i++) metrics.claimRefused(poolKey('corral', `p${i}`), 1);
		expect(await series(metrics.registry.metrics())).toHaveLength(REFUSED_SERIES_MAX);
	});
});
