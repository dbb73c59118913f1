/**
 * Derived values are memoised per input, not in module-level singletons: two stores (two
 * consoles in one process, tests) asked in turn each keep their own answers.
 */

import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../source/pool/audit.js';
import { auditLines, refusedByPool } from '../../source/tui/model/audit-filter.js';
import { findHits } from '../../source/tui/model/find-hits.js';
import { parseFilter } from '../../source/tui/model/member-filter.js';
import { type ConsoleStore, sortedPoolNames, visibleRows } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { storeWith } from './helpers.js';

/** A store on pool desk with n members. */
function storeOf(n: number): ConsoleStore {
	const s = poolSpec({ size: n });
	return storeWith(Array.from({ length: n }, (_, i) => member('desk', i + 1, s)).flat(), {
		spec: s,
	});
}

/** A refused claim of pool desk, seconds before NOW. */
function refused(name: string, count: number): AuditEntry {
	return {
		time: NOW - 60_000,
		namespace: 'corral',
		pool: 'desk',
		member: '',
		action: 'claim-refused',
		reason: 'ClaimRefused',
		type: 'Warning',
		holder: '',
		identity: 'u@example.com',
		actor: 'u@example.com',
		user: '',
		force: false,
		clamped: false,
		count,
		target: '',
		detail: '',
		message: `claim refused ${name}`,
		name,
		instance: '',
	};
}

describe('two stores asked in turn', () => {
	it('keep their own visible rows, pool order and find hits', () => {
		const a = storeOf(3);
		const b = storeOf(5);
		a.getState().setFilter('desk-[12]');
		b.getState().setFilter('!desk-1');
		a.getState().setFind('desk-3');
		b.getState().setFind('desk-5');
		const first = [a, b].map((s) => ({
			rows: visibleRows(s.getState()),
			pools: sortedPoolNames(s.getState()),
			hits: findHits(s.getState()),
		}));
		expect(first.map((f) => f.rows.map((r) => r.name))).toEqual([
			['desk-1', 'desk-2'],
			['desk-2', 'desk-3', 'desk-4', 'desk-5'],
		]);
		expect(first.map((f) => f.hits.length)).toEqual([1, 1]);
		// asked again, in turn: each store's answer is the one it had (not computed again)
		for (const [i, s] of [a, b].entries()) {
			expect(visibleRows(s.getState())).toBe(first[i]?.rows);
			expect(sortedPoolNames(s.getState())).toBe(first[i]?.pools);
			expect(findHits(s.getState())).toBe(first[i]?.hits);
		}
		// a change in one store leaves the other's answer in place
		b.getState().setFilter('desk-5');
		expect(visibleRows(b.getState()).map((r) => r.name)).toEqual(['desk-5']);
		expect(visibleRows(a.getState())).toBe(first[0]?.rows);
	});

	it('keep their own audit lines and refused claims', () => {
		const a = storeOf(1);
		const b = storeOf(1);
		a.getState().auditChange({ reset: [refused('ev-a', 2)] });
		b.getState().auditChange({ reset: [refused('ev-b1', 1), refused('ev-b2', 4)] });
		for (const s of [a, b]) s.getState().setAuditStatus('live');
		const lines = [a, b].map((s) => auditLines(s.getState()));
		const byPool = [a, b].map((s) => refusedByPool(s.getState()));
		expect(lines.map((l) => l.length)).toEqual([1, 2]);
		expect(byPool.map((m) => m?.get('desk'))).toEqual([2, 5]);
		for (const [i, s] of [a, b].entries()) {
			expect(auditLines(s.getState())).toBe(lines[i]);
			expect(refusedByPool(s.getState())).toBe(byPool[i]);
		}
	});

	it('filtering on two texts keep both parses', () => {
		// Texts no other test parses: the parses are kept by text, the oldest going first, and
		// the unit tests share their modules (a text parsed long before could go next).
		const one = parseFilter('memo-desk-1');
		const two = parseFilter('!memo-desk-2');
		expect(parseFilter('memo-desk-1')).toBe(one);
		expect(parseFilter('!memo-desk-2')).toBe(two);
		expect(two).toMatchObject({ inverse: true, text: '!memo-desk-2' });
	});
});

describe('the rows on screen', () => {
	it('are state, published by showMembers; the same rows again change nothing', () => {
		const store = storeOf(3);
		let updates = 0;
		const unsubscribe = store.subscribe(() => {
			updates++;
		});
		store.getState().showMembers(['desk-1', 'desk-2']);
		const shown = store.getState().shownMembers;
		expect([...shown]).toEqual(['desk-1', 'desk-2']);
		expect(store.getState().onScreen.shows('desk-2')).toBe(true);
		expect(updates).toBe(1);
		// a frame that redraws the same rows: no update
		store.getState().showMembers(['desk-2', 'desk-1']);
		expect(updates).toBe(1);
		expect(store.getState().shownMembers).toBe(shown);
		store.getState().showMembers([]);
		expect(store.getState().shownMembers.size).toBe(0);
		expect(store.getState().onScreen.shows('desk-1')).toBe(false);
		unsubscribe();
	});
});
