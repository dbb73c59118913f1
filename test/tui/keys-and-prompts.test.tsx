import { afterEach, describe, expect, it } from 'vitest';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lineWith, recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const s = poolSpec({ size: 4 });
const objects = () => [
	...member('desk', 1, s),
	...member('desk', 2, s, { holder: 'alice@example.com' }),
	...member('desk', 3, s, { holder: 'bob@example.com' }),
	...member('desk', 4, s, { state: 'Failed' }),
];

describe('navigation', () => {
	it('moves with arrows, j/k, g/G and keeps the selection on its member when rows change', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('j', KEY.down);
		expect(store.getState().selected).toBe('desk-3');
		await r.press('k');
		expect(store.getState().selected).toBe('desk-2');
		await r.press('G');
		expect(store.getState().selected).toBe('desk-4');
		await r.press('g');
		expect(store.getState().selected).toBe('desk-1');
		await r.press(KEY.down, KEY.down);
		// desk-3 stays selected while the filter hides the row above it
		store.getState().setFilter('b');
		await r.press();
		expect(store.getState().selected).toBe('desk-3');
	});
});

describe('filter', () => {
	it('filters by name, state or holder as it is typed; Enter keeps it, Esc clears it', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('/', 'a', 'l', 'i');
		let frame = r.lastFrame();
		expect(frame).toContain('/ ali');
		expect(lineWith(frame, 'desk-2')).toContain('alice@example.com');
		expect(frame).not.toMatch(/^desk-1 /m);
		expect(frame).not.toMatch(/^desk-3 /m);
		await r.press(KEY.enter);
		expect(store.getState().prompt).toBeNull();
		expect(store.getState().filter).toBe('ali');
		await r.press('/', KEY.backspace, KEY.backspace, KEY.backspace, 'f', 'a', 'i', 'l', KEY.enter);
		frame = r.lastFrame();
		expect(frame).toMatch(/^desk-4 +Failed/m);
		expect(frame).not.toMatch(/^desk-2 /m);
		await r.press('/', KEY.escape);
		frame = r.lastFrame();
		expect(store.getState().filter).toBe('');
		for (const m of ['desk-1', 'desk-2', 'desk-3', 'desk-4'])
			expect(frame).toMatch(new RegExp(`^${m} `, 'm'));
	});

	it('says so when nothing matches', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('/', 'z', 'z', 'z', KEY.enter);
		expect(r.lastFrame()).toContain('no member matches the filter "zzz"');
	});
});

describe('claim prompt', () => {
	it('is prefilled from --identity; Enter claims in the pool', async () => {
		const store = storeWith(objects(), { spec: s, session: { identity: 'erin@example.com' } });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 100, rows: 24, ops });
		await r.press('c');
		expect(r.lastFrame()).toContain('Claim a free member of desk for: erin@example.com');
		await r.press(KEY.enter);
		expect(calls).toEqual([['claim', 'desk', 'erin@example.com']]);
		expect(store.getState().prompt).toBeNull();
	});

	it('takes a typed identity, refuses an empty or reserved one, and Esc cancels', async () => {
		const store = storeWith(objects(), { spec: s });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 100, rows: 24, ops });
		await r.press('c', KEY.enter);
		expect(r.lastFrame()).toContain('the identity is empty');
		expect(calls).toEqual([]);
		await r.press(...'corral-vdi/reconciler'.split(''), KEY.enter);
		expect(r.lastFrame()).toContain('reserved for the reconciler');
		await r.press(KEY.escape);
		expect(calls).toEqual([]);
		expect(r.lastFrame()).toContain('claim cancelled');
		await r.press('c', ...'frank'.split(''), KEY.enter);
		expect(calls).toEqual([['claim', 'desk', 'frank']]);
	});
});

describe('release confirm', () => {
	it('names the member, its holder and that its data is destroyed; n and Esc cancel', async () => {
		const store = storeWith(objects(), { spec: s });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 80, rows: 24, ops });
		await r.press('j', 'x');
		const frame = r.lastFrame();
		expect(frame).toContain('Release desk-2 (held by alice@example.com) with --force?');
		expect(frame).toContain('ALL DATA OF desk-2 IS DESTROYED');
		expect(frame).toContain('y releases');
		await r.press('n');
		expect(store.getState().prompt).toBeNull();
		expect(r.lastFrame()).toContain('release of desk-2 cancelled');
		await r.press('x', KEY.escape);
		expect(store.getState().prompt).toBeNull();
		await r.press('x', 'q');
		// other keys do nothing while the confirm is open (q does not quit)
		expect(store.getState().prompt?.kind).toBe('release');
		await r.press(KEY.escape);
		expect(calls).toEqual([]);
	});

	it('y releases the member with --force', async () => {
		const store = storeWith(objects(), { spec: s });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 100, rows: 24, ops });
		await r.press('j', 'j', 'x');
		expect(r.lastFrame()).toContain('Release desk-3 (held by bob@example.com)');
		await r.press('y');
		expect(calls).toEqual([['release', 'desk', 'desk-3']]);
	});

	it('has nothing to release on a member without a claim', async () => {
		const store = storeWith(objects(), { spec: s });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 100, rows: 24, ops });
		await r.press('x');
		expect(store.getState().prompt).toBeNull();
		expect(r.lastFrame()).toContain('desk-1 has no claim; there is nothing to release');
		expect(calls).toEqual([]);
	});
});

describe('other keys', () => {
	it('r reconciles, a toggles the loop, m toggles maintenance, l shows the log', async () => {
		const store = storeWith(objects(), { spec: s });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 100, rows: 24, ops });
		await r.press('r', 'a', 'm');
		expect(calls).toEqual([
			['reconcile', 'desk'],
			['toggleLoop', 'desk'],
			['maintenance', 'desk', 'desk-1', true],
		]);
		store.getState().logEvent({
			time: Date.now(),
			actor: 'ctpool',
			pool: 'desk',
			member: 'desk-3',
			action: 'create',
			outcome: 'error',
			message: 'pods "desk-3" is forbidden',
		});
		await r.press('l');
		const frame = r.lastFrame();
		expect(frame).toContain('activity (1, 1 error)');
		expect(lineWith(frame, 'pods "desk-3" is forbidden')).toContain('✗ ERROR');
		await r.press('l');
		expect(r.lastFrame()).not.toContain('activity (');
	});

	it('s asks the runner for a console on the selected member and unmounts', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('s');
		await r.exited();
		expect(store.getState().request).toEqual({ kind: 'console', member: 'desk-1' });
	});

	it('s on a member without a running pod says why', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('G', 's');
		expect(store.getState().request).toBeNull();
		expect(r.lastFrame()).toContain('desk-4 has no running pod');
	});

	it('q quits', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('q');
		await r.exited();
		expect(store.getState().request).toEqual({ kind: 'quit' });
	});

	it('Ctrl-C quits, even from a prompt', async () => {
		const store = storeWith(objects(), { spec: s });
		r = await renderConsole(store, { columns: 100, rows: 24 });
		await r.press('c', KEY.ctrlC);
		await r.exited();
		expect(store.getState().request).toEqual({ kind: 'quit' });
	});
});

describe('bursts of keys', () => {
	it('treats a burst of typed text as the keys it is made of', async () => {
		const store = storeWith(objects(), { spec: s });
		const { ops, calls } = recordingOps();
		r = await renderConsole(store, { columns: 100, rows: 24, ops });
		await r.press('/bob\r');
		expect(store.getState().filter).toBe('bob');
		expect(store.getState().prompt).toBeNull();
		await r.press('c');
		await r.press('zed@example.com\r');
		expect(calls).toEqual([['claim', 'desk', 'zed@example.com']]);
	});
});
