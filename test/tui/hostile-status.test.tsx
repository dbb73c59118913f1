/**
 * Issue 22, finding 2 in the console: a recorded status of the wrong shape (`"errors":"boom"`,
 * `"errors":5`) neither ends the console nor drops the watch batch; the pool is shown, with
 * the status's problem named where the last reconcile is told.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { lastReconcile } from '../../source/tui/model/pool-columns.js';
import { poolSpec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

describe('a recorded status of the wrong shape', () => {
	for (const errors of ['boom', 5]) {
		it(`("errors":${JSON.stringify(errors)}) shows the pool and names the problem`, async () => {
			const s = poolSpec({ size: 2 });
			const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], {
				spec: s,
				pool: null,
				status: { observedAt: '2026-11-29T10:00:00Z', members: [], errors },
			});
			const p = store.getState().pools.desk;
			expect(p?.rows.map((x) => x.name)).toEqual(['desk-1', 'desk-2']);
			expect(p && lastReconcile(p, NOW).text).toBe('status: errors is not a list');
			r = await renderConsole(store, { columns: 160, rows: 24 });
			expect(lines(r.lastFrame()).some((l) => l.startsWith('desk'))).toBe(true);
			// the members screen and its header read the storm line of the recorded errors
			await r.press(KEY.enter);
			expect(store.getState().screen).toBe('members');
			expect(lines(r.lastFrame()).some((l) => l.startsWith('desk-1'))).toBe(true);
		});
	}
});
