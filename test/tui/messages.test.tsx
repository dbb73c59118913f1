/**
 * Issue 15, messages: a status-line message belongs to the screen and the action that made
 * it. It clears on navigation and on the next action; one that is not an error expires on the
 * store's clock; an error stays until dismissed and is in the activity log. The loop indicator
 * shows only on the pool the loop runs on.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { STATUS_TTL_MS } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, member, NOW, upserts } from './fixtures.js';
import { lineWith, storeWith } from './helpers.js';
import { flush, KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

/** Pools desk (one free member) and bad (one member), on the pools screen. */
function twoPools() {
	const desk = poolSpec({ size: 1 });
	const bad = poolSpec({ size: 1, image: 'ghcr.io/example/bad:1' });
	const store = storeWith(member('desk', 1, desk), { spec: desk, pool: null });
	store.getState().applyBatch(upserts([configMap('bad', bad), ...member('bad', 1, bad)]));
	return store;
}

/** A key refused on the pools screen (release needs a member selected). */
const REFUSED = '✗ release: select a member first';

describe.each([
	[80, 24],
	[120, 40],
	[200, 50],
])('status-line messages at %ix%i', (columns, rows) => {
	it('an error stays until Esc, and opening a pool clears it', async () => {
		const store = twoPools();
		r = await renderConsole(store, { columns, rows });
		await r.press('x');
		expect(r.lastFrame()).toContain(REFUSED);
		// the clock runs: an error does not expire
		store.getState().tick(NOW + 10 * STATUS_TTL_MS);
		await flush();
		expect(r.lastFrame()).toContain(REFUSED);
		await r.press(KEY.escape);
		expect(r.lastFrame()).not.toContain('✗');
		await r.press('x');
		expect(r.lastFrame()).toContain(REFUSED);
		await r.press(KEY.enter);
		const frame = r.lastFrame();
		expect(frame).toMatch(/pool (bad|desk) ·/);
		expect(frame).not.toContain('✗');
	});

	it("one pool's error is gone after Esc back and opening another pool", async () => {
		const store = twoPools();
		r = await renderConsole(store, { columns, rows });
		await r.press('j', KEY.enter);
		expect(r.lastFrame()).toContain('pool desk ·');
		store.getState().setStatus('pool has no free members', 'error');
		await flush();
		expect(r.lastFrame()).toContain('✗ pool has no free members');
		// moving the selection is not an action: the error stays
		await r.press('j');
		expect(r.lastFrame()).toContain('✗ pool has no free members');
		await r.press(KEY.escape);
		expect(r.lastFrame()).toContain('pools (2)');
		expect(r.lastFrame()).not.toContain('no free members');
		store.getState().setStatus('pool has no free members', 'error');
		store.getState().openPool('bad');
		await flush();
		expect(r.lastFrame()).toContain('pool bad ·');
		expect(r.lastFrame()).not.toContain('no free members');
	});

	it('opening the details clears the message; the next action replaces it', async () => {
		const store = twoPools();
		store.getState().openPool('desk');
		r = await renderConsole(store, { columns, rows });
		await r.press('x');
		expect(r.lastFrame()).toContain('✗ release: desk-1 has no claim');
		await r.press('m');
		expect(r.lastFrame()).not.toContain('has no claim');
		expect(r.lastFrame()).toContain('Maintenance on desk-1, reason:');
		await r.press(KEY.escape);
		store.getState().setStatus('something earlier', 'error');
		await r.press(KEY.enter);
		expect(r.lastFrame()).not.toContain('something earlier');
	});

	it('a message that is not an error expires after a few seconds of the clock', async () => {
		const store = twoPools();
		r = await renderConsole(store, { columns, rows });
		store.getState().setStatus('claimed desk-1 for alice', 'ok');
		await flush();
		expect(r.lastFrame()).toContain('✓ claimed desk-1 for alice');
		store.getState().tick(NOW + STATUS_TTL_MS - 1000);
		await flush();
		expect(r.lastFrame()).toContain('✓ claimed desk-1 for alice');
		store.getState().tick(NOW + STATUS_TTL_MS);
		await flush();
		expect(r.lastFrame()).not.toContain('claimed desk-1');
	});

	it('an error refused by a key is in the activity log', async () => {
		const store = twoPools();
		r = await renderConsole(store, { columns, rows });
		await r.press('x', 'l');
		const frame = r.lastFrame();
		expect(frame).toContain('1 error');
		expect(lineWith(frame, 'select a member first')).not.toBe('');
		expect(
			store
				.getState()
				.log.some((e) => e.outcome === 'error' && e.message.includes('select a member first')),
		).toBe(true);
	});

	it('the loop indicator shows only on the pool the loop runs on', async () => {
		const store = twoPools();
		store.getState().setLoop({ on: true, pool: 'bad' });
		r = await renderConsole(store, { columns, rows });
		expect(lineWith(r.lastFrame(), 'ctpool')).toContain('⟳ loop on bad');
		store.getState().openPool('desk');
		await flush();
		expect(r.lastFrame()).toContain('pool desk ·');
		expect(r.lastFrame()).not.toContain('⟳');
		store.getState().openPool('bad');
		await flush();
		expect(lineWith(r.lastFrame(), 'ctpool')).toContain('⟳ loop on');
	});
});
