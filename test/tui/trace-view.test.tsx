/**
 * The trace screen (key t, issue 26) at 80x24 and 120x40: trace events fed into the store
 * as the engine's onTrace gives them show each step's state live (pending, running with its
 * latest progress, done with its duration, failed with its error), the members left alone
 * with their reason and until as an age, and which reconciler the screen sees; the members
 * table marks what the plan touches once the trace was opened from it; Esc goes back.
 */

import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../source/engine/reconcile-plan.js';
import { TRACE_LINES_MAX } from '../../source/tui/model/trace-model.js';
import { TRACED_POOLS_MAX } from '../../source/tui/store/store.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, lineWith, storeWith } from './helpers.js';
import { flush, KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const PLAN: TraceEvent = {
	type: 'plan',
	time: NOW - 5_000,
	pool: 'desk',
	dryRun: false,
	steps: [
		{ kind: 'create', members: [] },
		{ kind: 'start', members: [] },
		{
			kind: 'replace',
			members: [
				{ member: 'desk-2', reason: 'drifted: image :1 → :2' },
				{ member: 'desk-3', reason: 'failed: CrashLoopBackOff' },
			],
		},
		{ kind: 'delete', members: [] },
		{ kind: 'takeover', members: [] },
	],
	leftAlone: [
		{ member: 'desk-1', reason: 'claimed' },
		{ member: 'desk-4', reason: 'replace backoff', until: NOW + 90_000 },
	],
};

function deskStore() {
	const s = spec({ size: 4 });
	return storeWith(
		[
			...member('desk', 1, s, { holder: 'bob@example.com' }),
			...member('desk', 2, s),
			...member('desk', 3, s, { state: 'Failed' }),
			...member('desk', 4, s),
		],
		{ spec: s },
	);
}

describe.each([
	[80, 24],
	[120, 40],
])('the trace screen at %ix%i', (columns, rows) => {
	it('shows each step live, the members left alone and why, and which reconciler it sees', async () => {
		const store = deskStore();
		r = await renderConsole(store, { columns, rows });
		await r.press('t');
		let frame = r.lastFrame();
		expect(store.getState().screen).toBe('trace');
		expect(frame).toMatch(/Trace · pool desk/);
		expect(frame).toContain('No plan yet');
		expect(frame.replace(/\s+/g, ' ')).toContain('seen through their Events');

		const feed = async (e: TraceEvent) => {
			store.getState().traceEvent('desk', e);
			await flush();
		};
		await feed(PLAN);
		frame = r.lastFrame();
		expect(lineWith(frame, 'desk-2:')).toMatch(
			/pending\s+replace\s+desk-2: drifted: image :1 → :2/,
		);
		expect(lineWith(frame, 'desk-3:')).toMatch(/pending\s+replace\s+desk-3/);
		expect(lineWith(frame, 'desk-1:')).toContain('desk-1: claimed');
		expect(lineWith(frame, 'desk-4:')).toMatch(/desk-4: replace backoff \(until in 90s\)/);
		expect(frame).toMatch(/next retry: desk-4 at \d\d:\d\d:\d\d \(in 90s\)/);
		expect(frame).toMatch(/plan made .* · running/);

		const at = (s: number) => NOW - 5_000 + s * 1000;
		await feed({
			type: 'step-start',
			time: at(1),
			pool: 'desk',
			member: 'desk-2',
			step: 'replace',
		});
		await feed({
			type: 'step-progress',
			time: at(2),
			pool: 'desk',
			member: 'desk-2',
			step: 'replace',
			progress: 'lease-taken',
			detail: 'Lease taken as corral-vdi/reconciler',
		});
		frame = r.lastFrame();
		expect(lineWith(frame, 'desk-2:')).toMatch(/running\s+replace\s+desk-2/);
		expect(frame).toContain('… Lease taken as corral-vdi/reconciler');
		expect(lineWith(frame, 'desk-3:')).toMatch(/pending/);

		await feed({
			type: 'step-end',
			time: at(3),
			pool: 'desk',
			member: 'desk-2',
			step: 'replace',
			result: 'done',
			ms: 1250,
		});
		await feed({
			type: 'step-start',
			time: at(3),
			pool: 'desk',
			member: 'desk-3',
			step: 'replace',
		});
		await feed({
			type: 'step-end',
			time: at(4),
			pool: 'desk',
			member: 'desk-3',
			step: 'replace',
			result: 'failed',
			ms: 500,
			error: 'pods "desk-3" is forbidden',
		});
		await feed({
			type: 'done',
			time: at(4),
			pool: 'desk',
			dryRun: false,
			ok: false,
			done: 1,
			failed: 1,
			skipped: 0,
			statusWritten: true,
			ms: 4000,
			errors: ['pods "desk-3" is forbidden'],
		});
		frame = r.lastFrame();
		expect(lineWith(frame, 'desk-2:')).toMatch(/done\s+replace\s+desk-2/);
		expect(frame).toContain('done in 1.25 s');
		expect(lineWith(frame, 'desk-3:')).toMatch(/failed\s+replace\s+desk-3/);
		expect(frame).toMatch(/failed after 0\.50 s: pods "desk-3" is forbidden/);
		expect(frame).toMatch(/finished in 4\.00 s: 1 done, 1 failed, 0 skipped/);
		for (const l of lines(frame)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
		// the key bar offers nothing that changes the cluster here
		const footer = lines(frame)
			.filter((l) => l.trim() !== '')
			.at(-1);
		expect(footer).toContain('back');
		expect(footer).not.toContain('reconcile');

		// back on the members screen, the members the plan touched are marked
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('members');
		frame = r.lastFrame();
		expect(lineWith(frame, 'desk-2 ')).toMatch(/^» /);
		expect(lineWith(frame, 'desk-3 ')).toMatch(/^» /);
		expect(lineWith(frame, 'desk-1 ')).not.toContain('»');
		// leaving for the pools screen ends the marks
		await r.press(KEY.escape);
		expect(store.getState().traceMarks).toBeNull();
	});

	it('opens from the pools screen for the selected pool and returns there', async () => {
		const store = deskStore();
		store.getState().setScreen('pools');
		store.getState().traceEvent('desk', PLAN);
		r = await renderConsole(store, { columns, rows });
		await r.press('t');
		expect(r.lastFrame()).toMatch(/Trace · pool desk/);
		expect(lineWith(r.lastFrame(), 'desk-2:')).toMatch(/pending/);
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('pools');
	});
});

describe('the trace in the store', () => {
	it('keeps the last plan per pool and at most TRACE_LINES_MAX event lines', () => {
		const store = deskStore();
		store.getState().traceEvent('desk', PLAN);
		for (let i = 0; i < TRACE_LINES_MAX + 50; i++)
			store.getState().traceEvent('desk', {
				type: 'step-progress',
				time: NOW,
				pool: 'desk',
				member: 'desk-2',
				step: 'replace',
				progress: 'waited',
				detail: `waited ${i} s`,
			});
		const t = store.getState().traces.desk;
		expect(t?.lines.length).toBe(TRACE_LINES_MAX);
		expect(t?.droppedLines).toBe(50);
		expect(t?.lines.at(-1)).toContain(`waited ${TRACE_LINES_MAX + 49} s`);
		// an event before any plan is dropped; a new plan replaces the last one
		store.getState().traceEvent('lab', {
			type: 'step-start',
			time: NOW,
			pool: 'lab',
			member: 'lab-1',
			step: 'create',
		});
		expect(store.getState().traces.lab).toBeUndefined();
		store.getState().traceEvent('desk', { ...PLAN, leftAlone: [] });
		expect(store.getState().traces.desk?.lines).toEqual([]);
	});

	it('keeps the last plan of at most TRACED_POOLS_MAX pools, the oldest plan giving way', () => {
		const store = deskStore();
		for (let i = 0; i <= TRACED_POOLS_MAX; i++)
			store.getState().traceEvent(`p${i}`, { ...PLAN, pool: `p${i}`, time: NOW + i });
		const kept = Object.keys(store.getState().traces);
		expect(kept).toHaveLength(TRACED_POOLS_MAX);
		expect(kept).not.toContain('p0');
		expect(kept).toContain(`p${TRACED_POOLS_MAX}`);
	});
});
