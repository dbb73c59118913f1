import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../source/kube/objects.js';
import { countMembers } from '../../source/pool/index.js';
import { columnValues } from '../../source/tui/model/member-columns.js';
import { ObjectIndex } from '../../source/tui/model/object-index.js';
import { derivePool } from '../../source/tui/model/pool-derivation.js';
import { currentPool } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, deletes, member, NOW, upserts } from './fixtures.js';
import { storeWith } from './helpers.js';

const SIZE = 6;
const s = poolSpec({ size: SIZE });

/** One step: a member (maybe above size) put in some state, or its objects deleted. */
const step = fc.record({
	index: fc.integer({ min: 1, max: SIZE + 2 }),
	remove: fc.boolean(),
	state: fc.constantFrom('Ready', 'Unschedulable', 'Failed', 'Starting', 'Stopped' as const),
	holder: fc.option(
		fc.constantFrom('a@example.com', 'a-much-longer-holder@example.com', '名前@例'),
		{
			nil: undefined,
		},
	),
	maintenance: fc.option(fc.constantFrom('disk check'), { nil: undefined }),
	drift: fc.boolean(),
});

describe('row tally', () => {
	it('keeps the counts, column facts and positions of a full derivation through any batches', () => {
		fc.assert(
			fc.property(
				fc.array(fc.array(step, { minLength: 1, maxLength: 4 }), { maxLength: 12 }),
				(batches) => {
					const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
					const index = new ObjectIndex();
					index.apply(
						upserts([configMap('desk', s), ...member('desk', 1, s), ...member('desk', 2, s)]),
					);
					for (const batch of batches) {
						const changes = batch.flatMap((b) => {
							const objects: KubeObject[] = member('desk', b.index, s, {
								state: b.state as never,
								...(b.holder ? { holder: b.holder } : {}),
								...(b.maintenance ? { maintenance: b.maintenance } : {}),
								...(b.drift
									? { builtFrom: poolSpec({ size: SIZE, image: 'ghcr.io/example/desktop:2' }) }
									: {}),
							});
							return b.remove ? deletes(objects) : upserts(objects);
						});
						store.getState().applyBatch(changes);
						index.apply(changes);
						const p = currentPool(store.getState());
						if (!p) throw new Error('no pool');
						const full = derivePool(index, 'desk', NOW);
						expect(p.rows.map((r) => `${r.name}:${r.state}:${r.holder}`)).toEqual(
							full.rows.map((r) => `${r.name}:${r.state}:${r.holder}`),
						);
						expect(p.counts).toEqual(countMembers(SIZE, p.rows));
						expect(p.columnValues).toEqual(columnValues(p.rows));
						p.rows.forEach((r, i) => {
							expect(p.positions.get(r.name)).toBe(i);
						});
						expect(p.positions.size).toBe(p.rows.length);
					}
				},
			),
			{ numRuns: 60 },
		);
	});

	it('keeps the facts object while the facts stay the same', () => {
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
		const before = currentPool(store.getState())!;
		store.getState().applyBatch(upserts(member('desk', 2, s, { state: 'Unschedulable' })));
		const after = currentPool(store.getState())!;
		expect(after.rows).not.toBe(before.rows);
		expect(after.counts.ready).toBe(1);
		expect(after.columnValues).toBe(before.columnValues);
		store.getState().applyBatch(upserts(member('desk', 2, s, { holder: 'alice@example.com' })));
		expect(currentPool(store.getState())!.columnValues.anyClaim).toBe(true);
	});
});
