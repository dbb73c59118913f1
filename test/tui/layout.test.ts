import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { compactDrift } from '../../source/tui/model/member-columns.js';
import { connectionView } from '../../source/tui/model/staleness.js';
import { layoutColumns } from '../../source/tui/render/table-layout.js';
import { windowStart } from '../../source/tui/render/table-window.js';
import { fitCell, truncate } from '../../source/tui/render/text-fit.js';
import { wrapText } from '../../source/tui/render/text-wrap.js';

describe('column layout', () => {
	const cols = [
		{ key: 'a', title: 'A', min: 10, max: 10, priority: 0 },
		{ key: 'b', title: 'B', min: 10, want: 20, max: 30, priority: 1 },
		{ key: 'c', title: 'C', min: 10, max: 10, priority: 3 },
		{ key: 'd', title: 'D', min: 10, max: Number.POSITIVE_INFINITY, priority: 2 },
	];
	it('drops the lowest priorities first and keeps the display order', () => {
		expect(layoutColumns(cols, 100).map((c) => c.key)).toEqual(['a', 'b', 'c', 'd']);
		expect(layoutColumns(cols, 45).map((c) => c.key)).toEqual(['a', 'b', 'd']);
		expect(layoutColumns(cols, 25).map((c) => c.key)).toEqual(['a', 'd']);
		expect(layoutColumns(cols, 15).map((c) => c.key)).toEqual(['a']);
	});
	it('never exceeds the width and gives what is left to the unbounded column', () => {
		for (const w of [20, 45, 64, 100, 200]) {
			const placed = layoutColumns(cols, w);
			const total = placed.reduce((n, c) => n + c.width, 0) + placed.length - 1;
			expect(total).toBeLessThanOrEqual(w);
		}
		const wide = layoutColumns(cols, 200);
		expect(wide.find((c) => c.key === 'b')?.width).toBe(30);
		expect(wide.find((c) => c.key === 'd')?.width).toBe(200 - 10 - 30 - 10 - 3);
	});
});

describe('text fitting', () => {
	it('truncates by display width without splitting wide characters', () => {
		expect(truncate('张伟张伟张伟', 5)).toBe('张伟…');
		expect(stringWidth(fitCell('张伟张伟张伟', 6))).toBe(6);
		expect(fitCell('😀😀😀', 4)).toBe('😀… ');
		expect(fitCell('abc', 5, 'right')).toBe('  abc');
	});
	it('sanitises as it fits', () => {
		expect(fitCell('a\u001b[31mb\u0007c', 5)).toBe('ab c ');
	});
	it('wraps by words', () => {
		expect(wrapText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
	});
});

describe('small helpers', () => {
	it('keeps the window on the selection', () => {
		expect(windowStart(100, 0, 10, 0)).toBe(0);
		expect(windowStart(100, 15, 10, 0)).toBe(6);
		expect(windowStart(100, 8, 10, 6)).toBe(6);
		expect(windowStart(100, 3, 10, 6)).toBe(3);
		expect(windowStart(5, 4, 10, 3)).toBe(0);
	});
	it('shortens image drift', () => {
		expect(compactDrift('image ghcr.io/example/desktop:1 -> ghcr.io/example/desktop:2')).toBe(
			'image desktop:1 -> :2',
		);
		expect(compactDrift('image a/x:1 -> b/y:2')).toBe('image a/x:1 -> b/y:2');
		expect(compactDrift('memory 1Gi -> 2Gi')).toBe('memory 1Gi -> 2Gi');
	});
	it('calls a connection stale only after a moment', () => {
		const now = 100_000;
		expect(connectionView({ phase: 'synced', since: 0 }, now).stale).toBe(false);
		expect(
			connectionView({ phase: 'reconnecting', since: now - 1000, attempts: 1, lastError: 'x' }, now)
				.stale,
		).toBe(false);
		const v = connectionView(
			{ phase: 'reconnecting', since: now - 3000, attempts: 2, lastError: 'EOF' },
			now,
		);
		expect(v.stale).toBe(true);
		expect(v.banner).toMatch(/stale since .* · retry 2 · last error: EOF/);
		expect(
			connectionView({ phase: 'failed', since: now, attempts: 1, reason: 'forbidden' }, now).stale,
		).toBe(true);
	});
});
