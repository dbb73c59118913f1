/**
 * Issue 15, the filter: a regular expression (text when it is not a valid one), `!` inverts,
 * on name, state, holder, node and message; the active filter is always shown with what it
 * hides; Esc clears it.
 */

import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../source/kube/objects.js';
import { filterSummary, matchesFilter, parseFilter } from '../../source/tui/model/member-filter.js';
import { visibleRows } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lines, lineWith, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const s = poolSpec({ size: 150 });

/** 150 members: desk-7 held by alice, desk-20 Failed, desk-21 Starting, desk-30 on gpu-node-7. */
function pool150() {
	const objects: KubeObject[] = [];
	for (let i = 1; i <= 150; i++)
		objects.push(
			...member(
				'desk',
				i,
				s,
				i === 7
					? { holder: 'alice@example.com' }
					: i === 20
						? { state: 'Failed', message: 'back-off 10s restarting failed container [ct]' }
						: i === 21
							? { state: 'Starting' }
							: i === 30
								? { node: 'gpu-node-7' }
								: {},
			),
		);
	return storeWith(objects, { spec: s });
}

/** The member names in the frame's table rows. */
function shownMembers(frame: string): string[] {
	return lines(frame)
		.map((l) => /^(desk-\d+) /.exec(l)?.[1])
		.filter((n): n is string => n !== undefined);
}

const type = (text: string) => ['/', ...Array.from(text), KEY.enter];

describe('parseFilter', () => {
	it('reads ! as inverse, keeps an invalid expression as text, and ignores an empty one', () => {
		expect(parseFilter('')).toBeNull();
		expect(parseFilter('  !  ')).toBeNull();
		expect(parseFilter('!Ready')).toMatchObject({ inverse: true, invalid: null });
		expect(parseFilter('desk-[')).toMatchObject({ inverse: false, regex: null });
		expect(parseFilter('desk-[')?.invalid).toMatch(/./);
	});
});

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('the members filter at %ix%i', (columns, rows) => {
	it('a regular expression, shown with the count it hides; Esc clears it', async () => {
		const store = pool150();
		r = await renderConsole(store, { columns, rows });
		expect(r.lastFrame()).not.toMatch(/^filter /m);
		await r.press(...type('desk-[12]$'));
		let frame = r.lastFrame();
		expect(frame).toContain('filter desk-[12]$: 2 of 150');
		expect(shownMembers(frame)).toEqual(['desk-1', 'desk-2']);
		// still shown once the prompt is closed, and the table does not lose its title line
		expect(store.getState().prompt).toBeNull();
		expect(lineWith(frame, 'NAME')).toMatch(/^NAME\s+STATE/);
		await r.press(KEY.escape);
		frame = r.lastFrame();
		expect(store.getState().filter).toBe('');
		expect(frame).not.toContain('filter desk');
		expect(shownMembers(frame)).toContain('desk-3');
		expect(frame).toContain('pool desk ·');
	});

	it('! keeps the members that do not match; alternation works', async () => {
		const store = pool150();
		r = await renderConsole(store, { columns, rows });
		await r.press(...type('!Ready'));
		let frame = r.lastFrame();
		expect(frame).toContain('filter !Ready: 2 of 150');
		expect(shownMembers(frame)).toEqual(['desk-20', 'desk-21']);
		await r.press(KEY.escape, ...type('Fail|Start'));
		frame = r.lastFrame();
		expect(frame).toContain('filter Fail|Start: 2 of 150');
		expect(shownMembers(frame)).toEqual(['desk-20', 'desk-21']);
	});

	it('matches holder, node and message; an invalid expression is matched as text and said so', async () => {
		const store = pool150();
		r = await renderConsole(store, { columns, rows });
		await r.press(...type('alice'));
		expect(r.lastFrame()).toContain('filter alice: 1 of 150');
		expect(shownMembers(r.lastFrame())).toEqual(['desk-7']);
		await r.press(KEY.escape, ...type('gpu-node'));
		expect(r.lastFrame()).toContain('filter gpu-node: 1 of 150');
		expect(shownMembers(r.lastFrame())).toEqual(['desk-30']);
		await r.press(KEY.escape, ...type('[ct'));
		const frame = r.lastFrame();
		expect(frame).toContain('filter [ct: 1 of 150 (not a valid regular expression');
		expect(shownMembers(frame)).toEqual(['desk-20']);
		expect(visibleRows(store.getState()).map((m) => m.name)).toEqual(['desk-20']);
	});
});

describe('matchesFilter', () => {
	it('is case-insensitive and inverse flips every field', () => {
		const store = pool150();
		const rows = visibleRows(store.getState());
		const failed = rows.find((m) => m.name === 'desk-20');
		expect(failed && matchesFilter(failed, 'RESTARTING')).toBe(true);
		expect(failed && matchesFilter(failed, '!restarting')).toBe(false);
		expect(rows.filter((m) => matchesFilter(m, '^desk-1[0-9]$'))).toHaveLength(10);
	});
});

describe('issue 22: a filter cannot stall the console', () => {
	it('runs in linear time: (a+)+b against a long holder is instant', () => {
		const store = storeWith(member('desk', 1, s, { holder: 'a'.repeat(27) }), { spec: s });
		const [row] = visibleRows(store.getState());
		expect(row?.holder).toBe('a'.repeat(27));
		const start = performance.now();
		// a backtracking engine takes seconds here (doubling with each `a`), and forever at 1,000
		expect(row && matchesFilter(row, '(a+)+b')).toBe(false);
		expect(row && matchesFilter(row, '!(a+)+b')).toBe(true);
		expect(row && matchesFilter(row, '^(a+)+$')).toBe(true);
		expect(performance.now() - start).toBeLessThan(250);
	});

	it('refuses what needs backtracking, says "pattern too costly" and matches it as text', () => {
		const f = parseFilter('(a)\\1');
		expect(f).toMatchObject({ regex: null, costly: true });
		expect(filterSummary('(a)\\1', 0, 1)).toContain('pattern too costly');
		expect(parseFilter('desk-[')).toMatchObject({ costly: false });
		expect(filterSummary('desk-[', 0, 1)).toContain('not a valid regular expression');
	});
});
