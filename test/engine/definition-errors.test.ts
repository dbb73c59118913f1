import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	apply,
	claim,
	deletePool,
	readPool,
	reconcile,
	release,
	setMaintenance,
} from '../../source/engine/index.js';
import { PERSISTENT_MESSAGE } from '../../source/pool/errors.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { poolError, putDefinition, putLease, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

const CORRUPT: Array<[string, string, RegExp]> = [
	['bad JSON', '{"image": "ghcr.io/example/desktop:1", "size": 3', /not valid JSON/],
	[
		'wrong types',
		'{"image": 42, "size": "three", "privileged": "yes"}',
		/image 42 is not a valid image reference.*privileged "yes" must be true or false.*size "three"/,
	],
	['missing fields', '{"cpu": "1"}', /image is missing.*size is missing/],
	[
		'unknown field',
		'{"image": "ghcr.io/example/desktop:1", "size": 2, "sise": 3}',
		/unknown field "sise"/,
	],
	['not an object', '[1, 2, 3]', /not a JSON object/],
];

describe('persistent mode and corrupt definitions', () => {
	it('refuses persistent mode at apply with the contract message and writes nothing', async () => {
		const ctx = c.context();
		const mark = c.mark();
		const err = await poolError(apply(ctx, 'pers', poolSpec({ mode: 'persistent' })));
		expect(err.kind).toBe('persistent');
		expect(err.message).toBe(PERSISTENT_MESSAGE);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-pers')).toBeUndefined();
	});

	it('refuses a persistent definition at reconcile, claim and release, and deletes nothing', async () => {
		const ctx = c.context();
		await apply(ctx, 'was', poolSpec({ size: 2 }));
		await waitReady(ctx, 'was', 2);
		await putLease(c, 'was', 'was-1', 'sam@example.com', Date.now(), 3600);
		await putDefinition(c, 'was', JSON.stringify({ ...poolSpec({ size: 0 }), mode: 'persistent' }));
		const mark = c.mark();
		for (const op of [
			() => reconcile(ctx, 'was'),
			() => claim(ctx, 'was', 'tom@example.com'),
			() => release(ctx, 'was', 'was-1', 'sam@example.com'),
			() => deletePool(ctx, 'was'),
		]) {
			const err = await poolError(op());
			expect(err.kind).toBe('persistent');
			expect(err.message).toBe(PERSISTENT_MESSAGE);
		}
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(await c.api.get('pods', 'was-2')).toBeDefined();
		// Status still shows it (read-only).
		const snap = await readPool(ctx, 'was');
		expect(snap.spec?.mode).toBe('persistent');
	});

	for (const [what, text, message] of CORRUPT) {
		it(`a corrupt spec (${what}) fails every operation with a clear error and deletes nothing`, async () => {
			const pool = `bad-${what.replace(/\s+/g, '-').toLowerCase()}`;
			const ctx = c.context();
			await apply(ctx, pool, poolSpec({ size: 1 }));
			await putLease(c, pool, `${pool}-1`, 'uma@example.com', Date.now(), 3600);
			await putDefinition(c, pool, text);
			const mark = c.mark();
			for (const op of [
				() => reconcile(ctx, pool),
				() => claim(ctx, pool, 'vic@example.com'),
				() => release(ctx, pool, `${pool}-1`, 'uma@example.com'),
				() => deletePool(ctx, pool),
				() => setMaintenance(ctx, pool, `${pool}-1`, true),
			]) {
				const err = await poolError(op());
				expect(err.kind).toBe('invalid-spec');
				expect(err.message).toMatch(message);
				expect(err.message).toContain(`pool ${pool}`);
				expect(err.message).toContain('ctpool apply');
			}
			expect(await c.ctpoolMutations(mark)).toEqual([]);
			expect(await c.api.get('pods', `${pool}-1`)).toBeDefined();
			const snap = await readPool(ctx, pool);
			expect(snap.spec).toBeNull();
			expect(snap.specError).toMatch(message);
		});
	}

	it('a pool without a definition is not-found, naming the namespace and the fix', async () => {
		const err = await poolError(reconcile(c.context(), 'nothere'));
		expect(err.kind).toBe('not-found');
		expect(err.message).toContain(`namespace ${c.ns}`);
		expect(err.message).toContain('ctpool apply nothere');
	});
});
