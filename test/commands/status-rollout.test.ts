/** `ctpool status` shows a rollout under way (its image), from the members as they are (table and JSON). */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, writeDefinition } from '../../source/engine/index.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { ctpool } from './capture.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describe('ctpool status during a rollout', () => {
	it('prints how far it is, and the JSON status carries the rollout key', async () => {
		const ctx = c.context();
		await apply(ctx, 'roll', poolSpec({ size: 2 }));
		const next = poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' });
		// the new source written without a reconcile: both members now run the old one
		await writeDefinition(ctx, 'roll', next);
		const target = sourceHash(sourceFields(next));
		const kc = c.kc;
		const table = await ctpool(['status', 'roll', ...kc]);
		expect(table.code).toBe(0);
		// the image it rolls to, not the source hash (issue 24)
		expect(table.stdout).toContain('rolling 0/2 to ghcr.io/example/desktop:2\n');
		const json = await ctpool(['status', 'roll', '-o', 'json', ...kc]);
		expect(JSON.parse(json.stdout).rollout).toEqual({
			target,
			image: 'ghcr.io/example/desktop:2',
			updated: 0,
			total: 2,
		});
		// no drift, no rollout
		await apply(ctx, 'still', poolSpec({ size: 1 }));
		const still = await ctpool(['status', 'still', '-o', 'json', ...kc]);
		expect(JSON.parse(still.stdout).rollout).toBeUndefined();
		expect((await ctpool(['status', 'still', ...kc])).stdout).not.toContain('rolling');
	});
});
