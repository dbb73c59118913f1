/**
 * Issue 15, console craft: sort (o/O), marks and bulk actions (Space * U, x and m on marks),
 * maintenance with a reason, details that wrap and scroll ([ ] between members), the
 * container log view (L, p), help that wraps; at 80x24, 120x40 and 200x50. Frames are read
 * line by line.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../source/kube/objects.js';
import { KEY_BINDINGS } from '../../source/tui/commands/keys.js';
import { sortRows } from '../../source/tui/model/sorting.js';
import { hardWrap } from '../../source/tui/render/text-wrap.js';
import { currentPool } from '../../source/tui/store/store.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { configMap, deletes, member, NOW, upserts } from './fixtures.js';
import { lines, lineWith, recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const HOUR = 3_600_000;

/** Pool desk of n members: odd ones claimed (desk-1 and desk-5 expired), desk-2 in maintenance. */
function desk(n = 6, extra: (i: number) => Partial<Parameters<typeof member>[3]> = () => ({})) {
	const s = spec({ size: n });
	const objects: KubeObject[] = [];
	const holders = ['zoe', 'alice', 'mia', 'bob', 'carl', 'dan', 'eve', 'fay'];
	for (let i = 1; i <= n; i++)
		objects.push(
			...member('desk', i, s, {
				...(i % 2 === 1
					? {
							holder: `${holders[(i - 1) % holders.length]}@example.com`,
							claimedAgo: i === 1 || i === 5 ? 2 * HOUR : 60_000,
						}
					: {}),
				...(i === 2 ? { maintenance: 'disk swap' } : {}),
				...extra(i),
			}),
		);
	return { store: storeWith(objects, { spec: s }), s };
}

/** The member names in table order, read from the frame. */
function tableOrder(frame: string): string[] {
	return lines(frame)
		.map((l) => /^(?:[*›] | {2})?(?:[*] | {2})?(desk-\d+)\s/.exec(l)?.[1])
		.filter((x): x is string => Boolean(x));
}

function fits(frame: string, columns: number, rows: number): void {
	expect(lines(frame).length).toBeLessThanOrEqual(rows - 1);
	for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
}

const SIZES: Array<[number, number]> = [
	[80, 24],
	[120, 40],
	[200, 50],
];

describe.each(SIZES)('console craft at %ix%i', (columns, rows) => {
	it('o sorts by the next column, O reverses; shown in the header and the title; kept across refreshes', async () => {
		const { store, s } = desk();
		r = await renderConsole(store, { columns, rows });
		expect(tableOrder(r.lastFrame())).toEqual([
			'desk-1',
			'desk-2',
			'desk-3',
			'desk-4',
			'desk-5',
			'desk-6',
		]);
		await r.press('o', 'o');
		let frame = r.lastFrame();
		expect(lineWith(frame, 'ctpool')).toContain('pool desk · sort HOLDER ↑');
		expect(lineWith(frame, 'STATE')).toMatch(/HOLDER↑/);
		// holders alphabetically (carl, mia, zoe), the unclaimed last in index order
		expect(tableOrder(frame)).toEqual(['desk-5', 'desk-3', 'desk-1', 'desk-2', 'desk-4', 'desk-6']);
		await r.press('O');
		frame = r.lastFrame();
		expect(lineWith(frame, 'ctpool')).toContain('sort HOLDER ↓');
		// reversed, empty holders still last
		expect(tableOrder(frame)).toEqual(['desk-1', 'desk-3', 'desk-5', 'desk-2', 'desk-4', 'desk-6']);
		// a refresh (desk-4 claimed by amy) keeps the sort and places the new holder
		store
			.getState()
			.applyBatch(upserts(member('desk', 4, s, { holder: 'amy@example.com', claimedAgo: 1000 })));
		await r.press();
		expect(tableOrder(r.lastFrame())).toEqual([
			'desk-1',
			'desk-3',
			'desk-5',
			'desk-4',
			'desk-2',
			'desk-6',
		]);
		expect(lineWith(r.lastFrame(), 'ctpool')).toContain('sort HOLDER ↓');
		fits(r.lastFrame(), columns, rows);
	});

	it('the pools screen sorts by its columns too', async () => {
		const { store } = desk();
		store.getState().setScreen('pools');
		r = await renderConsole(store, { columns, rows });
		for (let i = 0; i < 5; i++) await r.press('o');
		const frame = r.lastFrame();
		expect(lineWith(frame, 'ctpool')).toContain('pools (1) · sort FREE NOW ↑');
		// the arrow stays within the column's width
		expect(lineWith(frame, 'SIZE/OBS')).toContain('FREE NO↑');
		fits(frame, columns, rows);
	});

	it('Space marks, * marks the expired claims, U unmarks; a mark column and a count', async () => {
		const { store } = desk();
		r = await renderConsole(store, { columns, rows });
		await r.press(KEY.down, ' ');
		let frame = r.lastFrame();
		expect(lineWith(frame, 'desired')).toMatch(/^1 marked\s+desired 6/);
		expect(lineWith(frame, 'desk-2 ')).toMatch(/^\* desk-2 /);
		expect(lineWith(frame, 'desk-3 ')).toMatch(/^ {2}desk-3 /);
		await r.press('*');
		frame = r.lastFrame();
		expect(lineWith(frame, 'desired')).toMatch(/^3 marked/);
		expect(frame).toContain('marked 2 members whose claim expired');
		for (const m of ['desk-1', 'desk-2', 'desk-5'])
			expect(lineWith(frame, `${m} `)).toMatch(new RegExp(`^\\* ${m} `));
		await r.press(' ');
		expect(lineWith(r.lastFrame(), 'desired')).toMatch(/^2 marked/);
		await r.press('U');
		frame = r.lastFrame();
		expect(lineWith(frame, 'desired')).not.toContain('marked');
		expect(frame).toContain('unmarked 2');
		// the column stays while the screen lives
		expect(lineWith(frame, 'desk-1 ')).toMatch(/^ {2}desk-1 /);
		fits(frame, columns, rows);
	});

	it('x on marks asks once, listing every member and holder, then releases them all', async () => {
		const { store } = desk();
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		await r.press('*', KEY.down, KEY.down, ' ', 'x');
		const frame = r.lastFrame();
		expect(frame).toContain('Force-release 3 marked members of desk?');
		expect(frame).toContain('ALL THEIR DATA IS DESTROYED');
		expect(lineWith(frame, '  desk-1  ')).toContain('held by zoe@example.com');
		expect(lineWith(frame, '  desk-3  ')).toContain('held by mia@example.com');
		expect(lineWith(frame, '  desk-5  ')).toContain('held by carl@example.com');
		expect(frame).toContain('y releases all 3 · n or Esc cancels');
		fits(frame, columns, rows);
		await r.press('y');
		expect(calls).toEqual([['bulk', 'desk', 'release', ['desk-1', 'desk-3', 'desk-5'], '']]);
		expect(store.getState().prompt).toBeNull();
	});

	it('a long bulk list scrolls within the confirmation and still fits', async () => {
		// 40 members, every claim expired
		const { store } = desk(40, () => ({ holder: 'ops-team@example.com', claimedAgo: 2 * HOUR }));
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		await r.press('*', 'x');
		let frame = r.lastFrame();
		expect(frame).toContain('Force-release 40 marked members');
		expect(frame).toMatch(/members 1-\d+ of 40 · ↑ ↓ PgUp PgDn scroll/);
		expect(lineWith(frame, '  desk-1   ')).toContain('held by ops-team@example.com');
		expect(frame).not.toContain('  desk-40  ');
		fits(frame, columns, rows);
		for (let i = 0; i < 10; i++) await r.press(KEY.pageDown);
		frame = r.lastFrame();
		expect(lineWith(frame, '  desk-40  ')).toContain('held by ops-team@example.com');
		expect(frame).toMatch(/members \d+-40 of 40/);
		fits(frame, columns, rows);
		await r.press('n');
		expect(calls).toEqual([]);
		expect(r.lastFrame()).toContain('force-release: cancelled (40 marked)');
		// the marks stay for another try
		expect(store.getState().marks.size).toBe(40);
	});

	it('marks of members that go away are dropped', async () => {
		const { store, s } = desk();
		r = await renderConsole(store, { columns, rows });
		await r.press('*');
		expect(store.getState().marks).toEqual(new Set(['desk-1', 'desk-5']));
		// the pool shrinks to 4 and desk-5's objects go: desk-5 is no member any more
		store
			.getState()
			.applyBatch([
				...upserts([configMap('desk', spec({ size: 4 }))]),
				...deletes(member('desk', 5, s, { holder: 'carl@example.com' })),
			]);
		await r.press();
		expect(store.getState().marks).toEqual(new Set(['desk-1']));
		expect(lineWith(r.lastFrame(), 'desired')).toMatch(/^1 marked/);
	});

	it('m asks for a reason (prefilled), shown in MAINT and the details; with marks, one confirmation', async () => {
		const { store } = desk();
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		expect(r.lastFrame()).toMatch(/MAINT|maint: disk swap/);
		await r.press(KEY.down, KEY.down, 'm');
		expect(r.lastFrame()).toContain('Maintenance on desk-3, reason: set by ctpool in the console▏');
		for (let i = 0; i < 'set by ctpool in the console'.length; i++) await r.press(KEY.backspace);
		await r.press(...'new disk'.split(''), KEY.enter);
		expect(calls).toEqual([['maintenance', 'desk', 'desk-3', true, 'new disk']]);
		// the reason of desk-2 in the details
		await r.press(KEY.up, KEY.enter);
		expect(lineWith(r.lastFrame(), 'PVC')).toContain('maintenance disk swap');
		await r.press(KEY.escape, ' ', KEY.down, ' ', 'm');
		const frame = r.lastFrame();
		expect(frame).toContain('Maintenance on 2 marked members, reason:');
		expect(lineWith(frame, '  desk-2  ')).toContain('no holder');
		expect(lineWith(frame, '  desk-3  ')).toContain('held by mia@example.com');
		fits(frame, columns, rows);
		await r.press(KEY.enter);
		expect(calls.at(-1)).toEqual([
			'bulk',
			'desk',
			'maintenance-on',
			['desk-2', 'desk-3'],
			'set by ctpool in the console',
		]);
	});

	it('details wrap long lines, scroll with the keys, show a position; [ ] move in the sort order', async () => {
		const long = `Back-off pulling image "registry.example.com/${'very-long-path/'.repeat(8)}desktop:1"`;
		const { store } = desk(6, (i) => (i === 4 ? { state: 'Failed', message: long } : {}));
		const { ops, calls } = recordingOps();
		store.getState().setDetails({
			member: 'desk-4',
			loading: false,
			error: null,
			events: Array.from({ length: 40 }, (_, i) => ({
				time: NOW - (40 - i) * 1000,
				type: 'Warning',
				reason: 'BackOff',
				object: 'pod/desk-4',
				message: `event number ${i + 1}`,
				count: 1,
			})),
		});
		r = await renderConsole(store, { columns, rows, ops });
		await r.press('o', 'O', KEY.down, KEY.down);
		// reversed by state: Ready x5 then Failed; desk-4 (Failed) is last
		await r.press('G');
		expect(store.getState().selected).toBe('desk-4');
		await r.press(KEY.enter);
		let frame = r.lastFrame();
		expect(frame).toMatch(/desk-4 · member 6 of 6 · lines 1-\d+ of \d+/);
		// the long message is shown whole over several lines
		const text = lines(frame).join('').replace(/\s+/g, '');
		expect(text).toContain(long.replace(/\s+/g, ''));
		fits(frame, columns, rows);
		await r.press('G');
		frame = r.lastFrame();
		expect(frame).toContain('event number 40');
		expect(frame).not.toContain('Free      ');
		await r.press('g');
		expect(r.lastFrame()).toContain('Free      ');
		await r.press(KEY.pageDown);
		expect(r.lastFrame()).not.toMatch(/lines 1-/);
		// [ goes to the previous member in the members screen's order
		await r.press('[');
		expect(store.getState().selected).not.toBe('desk-4');
		expect(r.lastFrame()).toMatch(/desk-\d · member 5 of 6 · /);
		expect(calls.at(-1)?.[0]).toBe('loadEvents');
		await r.press(']');
		expect(r.lastFrame()).toMatch(/desk-4 · member 6 of 6 · lines 1-/);
		await r.press(']');
		expect(store.getState().selected).toBe('desk-4');
	});

	it('L follows the container log, sanitised; p asks for the previous one; Esc returns', async () => {
		const { store } = desk();
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns, rows, ops });
		await r.press(KEY.down, 'L');
		expect(calls.at(-1)).toEqual(['followLog', 'desk-2', false]);
		expect(r.lastFrame()).toContain('log desk-2 · connecting…');
		const s = store.getState();
		s.setPodLog({ ...(s.podLog ?? never()), phase: 'following' });
		s.appendPodLog(
			'desk-2',
			Array.from({ length: 100 }, (_, i) => `line ${i + 1}\u001b]0;owned\u0007 ok`),
		);
		await r.press();
		let frame = r.lastFrame();
		expect(frame).toMatch(/log desk-2 · following · lines \d+-100 of 100/);
		expect(frame).toContain('line 100');
		expect(frame).not.toContain('\u001b]0;');
		expect(frame).not.toContain('line 1 ');
		fits(frame, columns, rows);
		await r.press('g');
		frame = r.lastFrame();
		expect(frame).toContain('paused (G follows)');
		expect(frame).toContain('line 1');
		// a new line while paused does not move the view
		store.getState().appendPodLog('desk-2', ['line 101']);
		await r.press();
		expect(r.lastFrame()).not.toContain('line 101');
		await r.press('G');
		expect(r.lastFrame()).toContain('line 101');
		await r.press('p');
		expect(calls.at(-1)).toEqual(['followLog', 'desk-2', true]);
		await r.press(KEY.escape);
		expect(calls.at(-1)).toEqual(['stopLog']);
		expect(store.getState().screen).toBe('members');
		expect(store.getState().podLog).toBeNull();
	});

	it('a long list shows where the selection is, at the right of the titles', async () => {
		const { store } = desk(150);
		r = await renderConsole(store, { columns, rows });
		expect(lineWith(r.lastFrame(), 'STATE')).toMatch(/MESSAGE\s+1\/150$/);
		await r.press('G');
		expect(lineWith(r.lastFrame(), 'STATE')).toMatch(/\s150\/150$/);
		await r.press('k', 'k');
		expect(lineWith(r.lastFrame(), 'STATE')).toMatch(/\s148\/150$/);
		await r.press('/', ...'desk-1[0-9]$'.split(''), KEY.enter);
		// ten match: they fit, no position
		expect(lineWith(r.lastFrame(), 'STATE')).not.toMatch(/\/\d+$/);
		fits(r.lastFrame(), columns, rows);
	});

	it('help wraps every line to the width; ← goes to the last group (when paged), G to its end', async () => {
		const { store } = desk();
		r = await renderConsole(store, { columns, rows });
		await r.press('?');
		fits(r.lastFrame(), columns, rows);
		await r.press(KEY.left, 'G');
		const frame = r.lastFrame();
		fits(frame, columns, rows);
		expect(frame).toContain('q Ctrl-C');
	});
});

function never(): never {
	throw new Error('no log view state');
}

/** The README's "## Keys" table: its keys (backticked tokens) and descriptions. */
function readmeKeys(): Array<{ keys: string; description: string }> {
	const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
	const start = readme.indexOf('\n## Keys\n');
	expect(start).toBeGreaterThan(0);
	const section = readme.slice(start + 1).split(/\n## /)[0] ?? '';
	const rows = section.split('\n').filter((l) => /^\| `/.test(l));
	return rows.map((row) => {
		const cells = row
			.slice(1, -1)
			.split(/(?<!\\)\|/)
			.map((c) => c.trim());
		const keys = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]).join(' ');
		return { keys, description: (cells[1] ?? '').replace(/\\\|/g, '|') };
	});
}

describe('the README key table', () => {
	it('is exactly the help list: the same keys, in the same order, with the same words', () => {
		expect(readmeKeys()).toEqual(
			KEY_BINDINGS.map((b) => ({ keys: b.keys, description: b.description })),
		);
	});

	it('every key of it is on the help screen', async () => {
		const { store } = desk();
		r = await renderConsole(store, { columns: 200, rows: 50 });
		await r.press('?');
		const frame = r.lastFrame();
		for (const { keys, description } of readmeKeys()) {
			// a key may be on two lines (Space marks, or pauses the narrated demo)
			const line = lines(frame).filter((l) => l.startsWith(keys.padEnd(10)));
			expect(line.length, keys).toBeGreaterThan(0);
			expect(
				line.some((l) => l.includes(description.slice(0, 40))),
				keys,
			).toBe(true);
		}
		expect(currentPool(store.getState())?.pool).toBe('desk');
	});
});

describe('sortRows', () => {
	it('is stable, breaks ties by index, and keeps empty cells last in either direction', () => {
		const { store } = desk(8);
		const rows = currentPool(store.getState())?.rows ?? [];
		const names = (column: Parameters<typeof sortRows>[1]['column'], reverse: boolean) =>
			sortRows(rows, { column, reverse }).map((r) => r.name);
		// every Ready: index order both ways (ties by index, never reversed)
		expect(names('state', false)).toEqual(rows.map((r) => r.name));
		expect(names('state', true)).toEqual(rows.map((r) => r.name));
		// zoe, mia, carl, eve hold 1, 3, 5, 7; the rest have none and stay last
		expect(names('holder', false)).toEqual([
			'desk-5',
			'desk-7',
			'desk-3',
			'desk-1',
			'desk-2',
			'desk-4',
			'desk-6',
			'desk-8',
		]);
		expect(names('holder', true).slice(0, 4)).toEqual(['desk-1', 'desk-3', 'desk-7', 'desk-5']);
		expect(names('holder', true).slice(4)).toEqual(['desk-2', 'desk-4', 'desk-6', 'desk-8']);
		expect(names('name', true)[0]).toBe('desk-8');
	});
});

describe('hardWrap', () => {
	it('cuts a line into pieces of the width, never splitting a wide character', () => {
		expect(hardWrap('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
		expect(hardWrap('', 3)).toEqual(['']);
		expect(hardWrap('日本語です', 4)).toEqual(['日本', '語で', 'す']);
		expect(hardWrap('a\u001b[31mb', 10).join('')).not.toContain('\u001b');
	});
});
