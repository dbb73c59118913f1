/**
 * The narration pane of the narrated demo (ctpool --demo --narrate) at 80x24 and 120x40: the
 * sentence being told whole (wrapped, never cut), the ones told before, paused or telling and
 * how many wait; beside the table when wide, below it when narrow; Space pauses (it marks no
 * member then) and n tells the next, driving the demo's own pacer (on a fake clock here).
 */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { NarrationLine } from '../../source/engine/narration.js';
import { createPacer, fakePacerClock } from '../../source/engine/pacer.js';
import { wrapText } from '../../source/tui/render/text-wrap.js';
import type { ConsoleStore } from '../../source/tui/store/store.js';
import {
	NARRATION_SIDE_MIN_COLUMNS,
	narrationPaneLines,
	narrationSideWidth,
} from '../../source/tui/views/narration-pane.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const line = (text: string, kind: NarrationLine['kind'] = 'step'): NarrationLine => ({
	time: NOW,
	pool: 'desk',
	kind,
	text,
});

const DRIFT = line(
	'desk-3 drifted (image :1 → :2) and is unclaimed: the reconciler takes its Lease, so no one can claim it while it is rebuilt, then deletes its pod and PVC and makes it again from the current definition.',
);
const PLAN = line(
	'The reconciler reads pool desk and plans 2 steps, leaving 1 member alone.',
	'plan',
);
const DONE = line('desk-3 is replaced, in 4.2 s.', 'end');

/** A store of pool desk narrating through a real pacer on a fake clock. */
function narrated() {
	const s = spec({ size: 4 });
	const store: ConsoleStore = storeWith(
		[1, 2, 3, 4].flatMap((i) => member('desk', i, s)),
		{ spec: s },
	);
	const clock = fakePacerClock();
	const pacer = createPacer<NarrationLine>({
		intervalMs: 4000,
		clock,
		release: () => {},
		onChange: (state) => store.getState().narrationChanged(state),
	});
	store.getState().startNarration(pacer);
	return { store, pacer, clock };
}

/** The frame's lines that hold the sentence, in order: every wrapped piece of it. */
function sentenceShown(frame: string, text: string, width: number): boolean {
	const pieces = wrapText(text, width, { whole: true });
	const flat = lines(frame).join('\n');
	let at = 0;
	for (const p of pieces) {
		const i = flat.indexOf(p, at);
		if (i < 0) return false;
		at = i + p.length;
	}
	return true;
}

describe.each([
	[80, 24],
	[120, 40],
])('the narration pane at %ix%i', (columns, rows) => {
	it('tells the current sentence whole, the last ones told, paused or telling, and how many wait', async () => {
		const { store, pacer, clock } = narrated();
		r = await renderConsole(store, { columns, rows });
		expect(r.lastFrame()).toContain('The story begins in a moment');
		pacer.push(PLAN);
		pacer.push(DRIFT);
		pacer.push(DONE);
		await r.press();
		let frame = r.lastFrame();
		expect(frame).toMatch(/narration · ▶ telling · 2 waiting/);
		expect(frame).toContain('The reconciler reads pool desk');

		// the clock tells the next: the drift sentence, whole, the plan under it as told
		clock.advance(4000);
		await r.press();
		frame = r.lastFrame();
		const wide = columns >= NARRATION_SIDE_MIN_COLUMNS;
		const width = wide ? narrationSideWidth(columns) : columns;
		expect(sentenceShown(frame, DRIFT.text, width)).toBe(true);
		expect(frame).toMatch(/▶ telling · 1 waiting/);
		expect(frame).toContain('The reconciler reads pool desk');
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
		// beside the table when wide (the table's rows share lines with it), below when narrow
		const title = lines(frame).findIndex((l) => l.includes('── narration'));
		const tableRow = lines(frame).findIndex((l) => /desk-1\s/.test(l));
		if (wide) {
			expect(lines(frame)[title]?.indexOf('── narration')).toBeGreaterThan(columns / 2);
			expect(title).toBeLessThan(tableRow + 4);
		} else {
			expect(title).toBeGreaterThan(lines(frame).findIndex((l) => /desk-4\s/.test(l)));
		}
		// the key bar offers the narration's keys, not mark's Space
		const bar =
			lines(frame)
				.filter((l) => l.trim() !== '')
				.at(-1) ?? '';
		expect(bar).toContain('Space pause');
		expect(bar).toContain('n next line');
		expect(bar).not.toContain('mark');

		// Space pauses (no member is marked), the clock tells nothing; n tells the next anyway
		await r.press(' ');
		expect(store.getState().marks.size).toBe(0);
		expect(r.lastFrame()).toMatch(/⏸ paused · 1 waiting/);
		clock.advance(20_000);
		await r.press();
		expect(store.getState().narration?.current).toBe(DRIFT);
		await r.press('n');
		frame = r.lastFrame();
		expect(store.getState().narration?.current).toBe(DONE);
		expect(frame).toContain('desk-3 is replaced, in 4.2 s.');
		expect(frame).toMatch(/⏸ paused/);
		expect(store.getState().narration?.told).toEqual([PLAN, DRIFT]);
		// n with nothing waiting says so; Space resumes
		await r.press('n');
		expect(r.lastFrame()).toContain('nothing waits to be told');
		await r.press(' ');
		expect(r.lastFrame()).toMatch(/▶ telling/);
		expect(pacer.state().paused).toBe(false);
	});

	it("shows in help that Space is the narration's while narrating", async () => {
		const { store } = narrated();
		r = await renderConsole(store, { columns, rows });
		await r.press('?');
		const all: string[] = [];
		// help may page its groups: look through every one
		for (let i = 0; i < 4; i++) {
			all.push(...lines(r.lastFrame()));
			await r.press(KEY.right);
		}
		const text = all.join(' ').replace(/\s+/g, ' ');
		expect(text).toMatch(/while narrating, Space is pause/);
		expect(text).toMatch(/pause or resume the narration/);
	});
});

describe('the narration pane lines', () => {
	it('never cut a sentence: one told before is shown whole or not at all', () => {
		const view = {
			current: DRIFT,
			told: [PLAN, line('x '.repeat(200).trim())],
			waiting: 0,
			paused: false,
			control: { toggle: () => false, next: () => false },
		};
		const out = narrationPaneLines(view, 40, 9);
		const current = wrapText(DRIFT.text, 40, { whole: true });
		expect(out.filter((l) => l.tone === 'current').map((l) => l.text)).toEqual(current);
		// the long one told last does not fit in what is left: nothing of it is shown
		expect(out.some((l) => l.text.startsWith('x x'))).toBe(false);
		for (const l of out) expect(stringWidth(l.text)).toBeLessThanOrEqual(40);
	});

	it('sanitise what they show (a sentence carries names from the cluster)', () => {
		const view = {
			current: line('desk-\u001b[2J9 drifted\u0007 and is unclaimed.'),
			told: [],
			waiting: 0,
			paused: false,
			control: { toggle: () => false, next: () => false },
		};
		for (const l of narrationPaneLines(view, 60, 5))
			expect(l.text).not.toMatch(/[\u0000-\u001f\u007f]/);
	});
});
