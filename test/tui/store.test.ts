import { describe, expect, it } from 'vitest';
import { currentPool, selectedRow } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, deletes, lease, member, NOW, upserts } from './fixtures.js';
import { storeWith } from './helpers.js';

describe('console store', () => {
	it('derives rows in index order with Missing members up to size', () => {
		const s = poolSpec({ size: 3 });
		const store = storeWith([...member('desk', 3, s), ...member('desk', 1, s)], { spec: s });
		const p = currentPool(store.getState());
		expect(p?.rows.map((r) => `${r.name}:${r.state}`)).toEqual([
			'desk-1:Ready',
			'desk-2:Missing',
			'desk-3:Ready',
		]);
		expect(p?.counts).toMatchObject({ desired: 3, observed: 2, ready: 2, free: 2 });
	});

	it('derives again only the members a batch touched', () => {
		const s = poolSpec({ size: 3 });
		const store = storeWith(
			[...member('desk', 1, s), ...member('desk', 2, s), ...member('desk', 3, s)],
			{
				spec: s,
			},
		);
		const before = currentPool(store.getState())!.rows;
		store.getState().applyBatch(upserts([lease('desk', 'desk-2', 'alice@example.com', NOW)]));
		const after = currentPool(store.getState())!.rows;
		expect(after).not.toBe(before);
		expect(after[0]).toBe(before[0]);
		expect(after[2]).toBe(before[2]);
		expect(after[1]).not.toBe(before[1]);
		expect(after[1]?.holder).toBe('alice@example.com');
		expect(currentPool(store.getState())?.counts.claimed).toBe(1);
	});

	it('derives the whole pool again when its definition changes', () => {
		const s = poolSpec({ size: 2 });
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
		const before = currentPool(store.getState())!.rows;
		const s2 = poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' });
		store.getState().applyBatch(upserts([configMap('desk', s2)]));
		const after = currentPool(store.getState())!.rows;
		expect(after[0]).not.toBe(before[0]);
		expect(after.every((r) => r.drifted)).toBe(true);
		expect(after[0]?.drift).toEqual([
			'image ghcr.io/example/desktop:1 -> ghcr.io/example/desktop:2',
		]);
	});

	it('applies a whole batch in one update', () => {
		const s = poolSpec({ size: 50 });
		const store = storeWith([], { spec: s });
		let updates = 0;
		const unsubscribe = store.subscribe(() => updates++);
		const objects = [];
		for (let i = 1; i <= 50; i++) objects.push(...member('desk', i, s));
		store.getState().applyBatch(upserts(objects));
		unsubscribe();
		expect(updates).toBe(1);
		expect(currentPool(store.getState())?.counts.ready).toBe(50);
	});

	it('a reset replaces every object of its kind', () => {
		const s = poolSpec({ size: 2 });
		const store = storeWith(
			[
				...member('desk', 1, s, { holder: 'a@example.com' }),
				...member('desk', 2, s, { holder: 'b@example.com' }),
			],
			{ spec: s },
		);
		store
			.getState()
			.applyBatch([
				{ kind: 'leases', op: 'reset', objects: [lease('desk', 'desk-2', 'b@example.com', NOW)] },
			]);
		const rows = currentPool(store.getState())!.rows;
		expect(rows.map((r) => r.holder)).toEqual(['', 'b@example.com']);
	});

	it('drops members above size once their objects are gone, and pools with nothing left', () => {
		const s = poolSpec({ size: 1 });
		const extra = member('desk', 2, s);
		const store = storeWith([...member('desk', 1, s), ...extra], { spec: s, pool: null });
		expect(currentPool({ ...store.getState(), pool: 'desk' })?.rows.map((r) => r.name)).toEqual([
			'desk-1',
			'desk-2',
		]);
		store.getState().applyBatch(deletes(extra));
		expect(store.getState().pools.desk?.rows.map((r) => r.name)).toEqual(['desk-1']);
		store.getState().applyBatch(upserts(member('lab', 1, s)));
		expect(store.getState().poolNames).toEqual(['desk', 'lab']);
		store.getState().applyBatch([
			{ kind: 'pods', op: 'reset', objects: [] },
			{ kind: 'persistentvolumeclaims', op: 'reset', objects: [] },
		]);
		expect(store.getState().poolNames).toEqual(['desk']);
	});

	it('keeps the selection on its member by name, else at its place', () => {
		const s = poolSpec({ size: 4 });
		const objects = [1, 2, 3, 4].flatMap((i) => member('desk', i, s));
		const store = storeWith(objects, { spec: s });
		store.getState().move(2);
		expect(selectedRow(store.getState())?.name).toBe('desk-3');
		// desk-3's index stays; a change elsewhere does not move the selection
		store.getState().applyBatch(upserts([lease('desk', 'desk-1', 'a@example.com', NOW)]));
		expect(selectedRow(store.getState())?.name).toBe('desk-3');
		// the filter hides desk-1: the selection stays on desk-3
		store.getState().setFilter('desk-3');
		expect(selectedRow(store.getState())?.name).toBe('desk-3');
		store.getState().setFilter('');
		// desk-3 goes (above size and deleted): the row now at its place is selected
		store.getState().applyBatch(upserts([configMap('desk', poolSpec({ size: 2 }))]));
		store.getState().applyBatch(deletes(member('desk', 3, s)));
		expect(selectedRow(store.getState())?.name).toBe('desk-4');
	});

	it('marks a claim expired when the clock passes its expiry', () => {
		const s = poolSpec({ size: 1 });
		const store = storeWith(
			member('desk', 1, s, { holder: 'a@example.com', claimedAgo: 3590_000 }),
			{ spec: s },
		);
		expect(currentPool(store.getState())?.rows[0]?.claimExpired).toBe(false);
		store.getState().tick(NOW + 5_000);
		expect(currentPool(store.getState())?.rows[0]?.claimExpired).toBe(false);
		store.getState().tick(NOW + 11_000);
		expect(currentPool(store.getState())?.rows[0]?.claimExpired).toBe(true);
	});

	it('keeps at most the log limit', () => {
		const store = storeWith([]);
		for (let i = 0; i < 600; i++)
			store.getState().logEvent({
				time: i,
				actor: 'a',
				pool: 'desk',
				action: 'x',
				outcome: 'info',
				message: String(i),
			});
		const log = store.getState().log;
		expect(log.length).toBe(500);
		expect(log.at(-1)?.message).toBe('599');
		expect(log[0]?.message).toBe('100');
	});
});
