import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lines, lineWith, storeWith } from './helpers.js';
import { type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

describe('members screen', () => {
	it('shows the header and one row per member in index order', async () => {
		const s = poolSpec({ size: 4, memory: '2Gi' });
		const store = storeWith(
			[
				...member('desk', 2, s, { holder: 'alice@example.com' }),
				...member('desk', 1, s),
				...member('desk', 4, s, { state: 'Unschedulable' }),
			],
			{ spec: s },
		);
		r = await renderConsole(store, { columns: 120, rows: 30 });
		const frame = r.lastFrame();
		expect(frame).toContain('pool desk · ns corral · ctx sim');
		expect(frame).toContain('● live');
		expect(frame).toContain(
			'image ghcr.io/example/desktop:1 · size 4 · ephemeral · cpu 1 · mem 2Gi',
		);
		expect(frame).toContain(
			'desired 4 observed 3 ready 2 claimed 1 claimable now 1 soon 0 refused/1h … unschedulable 1',
		);
		const rows = lines(frame).filter((l) => /^desk-\d/.test(l));
		expect(rows.map((l) => l.split(' ')[0])).toEqual(['desk-1', 'desk-2', 'desk-3', 'desk-4']);
		expect(lineWith(frame, 'desk-2')).toMatch(/desk-2\s+Ready\s+alice@example\.com\s+60s 59m left/);
		expect(lineWith(frame, 'desk-3')).toMatch(/desk-3\s+Missing/);
		expect(lineWith(frame, 'desk-4')).toContain('0/3 nodes are available: 3 Insufficient memory.');
	});

	it('marks expired claims, drift with what drifted, maintenance and members above size', async () => {
		const old = poolSpec({ size: 2, image: 'ghcr.io/example/desktop:1' });
		const s = poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' });
		const store = storeWith(
			[
				...member('desk', 1, s, { holder: 'bob@example.com', claimedAgo: 2 * 3600_000 }),
				...member('desk', 2, old, { maintenance: 'disk check' }),
				...member('desk', 3, s),
			],
			{ spec: s },
		);
		r = await renderConsole(store, { columns: 160, rows: 30 });
		const frame = r.lastFrame();
		expect(lineWith(frame, 'desk-1')).toContain('120m EXPIRED');
		expect(lineWith(frame, 'desk-2')).toContain('image desktop:1 -> :2');
		expect(lineWith(frame, 'desk-2')).toContain('disk check');
		expect(lineWith(frame, 'desk-3')).toMatch(/ yes /);
		expect(frame).toContain('drifted 1');
	});

	it('keeps every fact at 80 columns: hidden columns move into the message', async () => {
		const old = poolSpec({ size: 2, image: 'ghcr.io/example/desktop:1' });
		const s = poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' });
		const store = storeWith(
			[
				...member('desk', 1, old, { holder: 'alice@example.com' }),
				...member('desk', 2, s, { maintenance: '' }),
				...member('desk', 3, s),
			],
			{ spec: s },
		);
		r = await renderConsole(store, { columns: 80, rows: 24 });
		const frame = r.lastFrame();
		const header = lineWith(frame, 'NAME');
		expect(header).toMatch(/^NAME\s+STATE\s+HOLDER\s+CLAIM\s+/);
		expect(header).not.toContain('DRIFT');
		expect(lineWith(frame, 'desk-1')).toContain('drift: image desktop:1 -> :2');
		const shownOrCarried = (line: string, column: string, text: string) =>
			header.includes(column) || line.includes(text);
		expect(shownOrCarried(lineWith(frame, 'desk-2'), 'MAINT', 'maint')).toBe(true);
		expect(shownOrCarried(lineWith(frame, 'desk-3'), 'ABOVE', 'above size')).toBe(true);
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(80);
	});

	it('keeps columns aligned with wide characters in holders', async () => {
		const s = poolSpec({ size: 3 });
		const store = storeWith(
			[
				...member('desk', 1, s, { holder: '张伟@例子.公司.中国.example.com' }),
				...member('desk', 2, s, { holder: '😀😀😀@example.com' }),
				...member('desk', 3, s, { holder: 'carol@example.com' }),
			],
			{ spec: s },
		);
		r = await renderConsole(store, { columns: 100, rows: 24 });
		const frame = r.lastFrame();
		const at = (l: string) => stringWidth(l.slice(0, l.indexOf('left') + 4));
		const ends = ['desk-1', 'desk-2', 'desk-3'].map((m) => at(lineWith(frame, m)));
		expect(new Set(ends).size).toBe(1);
		expect(lineWith(frame, 'desk-1')).toContain('…');
	});

	it('follows the watch: a new holder appears without any key', async () => {
		const s = poolSpec({ size: 2 });
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		expect(lineWith(r.lastFrame(), 'desk-2')).not.toContain('dave@example.com');
		const { upserts } = await import('./fixtures.js');
		store.getState().applyBatch(upserts(member('desk', 2, s, { holder: 'dave@example.com' })));
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(lineWith(r.lastFrame(), 'desk-2')).toContain('dave@example.com');
	});
});
