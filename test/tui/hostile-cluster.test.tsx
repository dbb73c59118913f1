/**
 * Issue 12 in the console. Finding 4: a huge field (a 1 MB Lease holder, annotation and pod
 * message) keeps it responsive: the table renders, Enter opens the details, Esc and q work,
 * and no line is longer than the screen (render completion is asserted, not timings).
 * Findings 1 and 2: objects not the pool's and a stranded member are named in their rows.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { CONSOLE_STRING_BOUND } from '../../source/tui/model/bounded-object.js';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lines, recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const MB = 1024 * 1024;
const huge = `holder-${'h'.repeat(MB)}`;

function objects() {
	const s = poolSpec({ size: 2 });
	const objs = [...member('desk', 1, s, { holder: huge }), ...member('desk', 2, s)];
	for (const o of objs) {
		(o.metadata as { annotations?: Record<string, string> }).annotations = {
			...(o.metadata as { annotations?: Record<string, string> }).annotations,
			note: 'n'.repeat(MB),
		};
	}
	return { s, objs };
}

describe('a 1 MB field', () => {
	it('is cut when it enters the console: rows, details, Esc and q all work', async () => {
		const { s, objs } = objects();
		const store = storeWith(objs, { spec: s });
		// what the console holds is already bounded
		const row = store.getState().pools.desk?.rows.find((x) => x.name === 'desk-1');
		expect(row?.leaseHolder.length).toBeLessThanOrEqual(CONSOLE_STRING_BOUND + 1);
		r = await renderConsole(store, { columns: 100, rows: 24 });
		expect(r.lastFrame()).toContain('desk-1');
		expect(Math.max(...lines(r.lastFrame()).map((l) => l.length))).toBeLessThan(400);
		await r.press(KEY.enter);
		expect(store.getState().screen).toBe('details');
		expect(r.lastFrame()).toContain('holder-hhh');
		expect(Math.max(...lines(r.lastFrame()).map((l) => l.length))).toBeLessThan(400);
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('members');
		await r.press('q');
		await r.exited();
		expect(store.getState().request?.kind).toBe('quit');
	}, 60_000);
});

describe("objects under a member name that are not the pool's", () => {
	it("are named in the member's row from the recorded status, and the member is not free", async () => {
		const s = poolSpec({ size: 2 });
		const status = {
			observedAt: '2026-11-29T10:00:00Z',
			members: [],
			errors: [
				"start desk-2: desk-2: a pod of that name is not this pool's; ctpool will not touch it (rename or remove it, or use another pool name)",
			],
		};
		const store = storeWith(
			[...member('desk', 1, s), ...member('desk', 2, s, { state: 'Stopped' })],
			{
				spec: s,
				status,
			},
		);
		const row = store.getState().pools.desk?.rows.find((x) => x.name === 'desk-2');
		expect(row?.free).toBe(false);
		expect(row?.foreign).toEqual(['pod']);
		r = await renderConsole(store, { columns: 160, rows: 24 });
		expect(lines(r.lastFrame()).find((l) => l.startsWith('desk-2')) ?? '').toContain(
			"desk-2: a pod of that name is not this pool's",
		);
		expect(store.getState().pools.desk?.counts.free).toBe(1);
	});
});

describe('a member stranded by a reconciler Lease renewed in the future', () => {
	it('says so in its row, and x confirms a forced release that names it', async () => {
		const s = poolSpec({ size: 2 });
		const { ops, calls } = recordingOps();
		const store = storeWith(
			[
				...member('desk', 1, s),
				...member('desk', 2, s, {
					holder: 'corral-vdi/reconciler',
					claimedAgo: -365 * 24 * 3600_000,
					duration: 600,
				}),
			],
			{ spec: s },
		);
		r = await renderConsole(store, { columns: 200, rows: 24, ops });
		expect(lines(r.lastFrame()).find((l) => l.startsWith('desk-2')) ?? '').toContain(
			'is in the future',
		);
		await r.press('j', 'x');
		expect(r.lastFrame()).toContain('stranded: its Lease');
		await r.press('y');
		expect(calls).toEqual([['release', 'desk', 'desk-2']]);
	});
});
