import { afterEach, describe, expect, it } from 'vitest';
import type { KeyContext } from '../../source/tui/commands/command.js';
import { showText } from '../../source/tui/commands/show-text.js';
import { poolSpec } from '../support/pool-spec.js';
import { member } from './fixtures.js';
import { lines, recordingOps, storeWith } from './helpers.js';
import { KEY, type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

const s = poolSpec({ size: 2 });

function context(store: ReturnType<typeof storeWith>): KeyContext {
	return { store, ops: recordingOps().ops as never, exit: () => {}, pageSize: () => 5 };
}

describe('the text screen', () => {
	it('shows a title and lines, scrolls with the usual keys, and Esc returns', async () => {
		const store = storeWith([...member('desk', 1, s), ...member('desk', 2, s)], { spec: s });
		r = await renderConsole(store, { columns: 80, rows: 24 });
		store.getState().setStatus('an earlier message');
		const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
		showText(context(store), 'forty lines', text);
		await r.press();
		expect(store.getState().screen).toBe('text');
		let frame = r.lastFrame();
		expect(frame).toMatch(/forty lines · lines 1-\d+ of 40 ↑↓ scroll · Esc returns/);
		expect(lines(frame)).toContain('line 1');
		expect(frame).not.toContain('line 40');
		await r.press('G');
		frame = r.lastFrame();
		expect(lines(frame)).toContain('line 40');
		expect(lines(frame)).not.toContain('line 1');
		await r.press('g', KEY.down, 'j');
		expect(lines(r.lastFrame())).toContain('line 3');
		expect(lines(r.lastFrame())).not.toContain('line 2');
		// a key that does not act here says so; the table's keys are not offered
		await r.press('x');
		expect(r.lastFrame()).toContain('release: not in this view (Esc returns)');
		expect(store.getState().prompt).toBeNull();
		await r.press(KEY.escape);
		expect(store.getState().screen).toBe('members');
		expect(r.lastFrame()).toMatch(/^desk-1 /m);
	});

	it('keeps every character of a long line (broken, never cut) and draws no control character', async () => {
		const store = storeWith(member('desk', 1, s), { spec: s });
		r = await renderConsole(store, { columns: 60, rows: 24 });
		const long = `${'a'.repeat(50)} ${'b'.repeat(50)}  two spaces`;
		showText(context(store), 'title\u001b[31m red', [
			long,
			'bell\u0007 and \u001b]0;owned\u0007 osc',
		]);
		await r.press();
		const frame = r.lastFrame();
		expect(frame.replace(/\n/g, '')).toContain(long);
		expect(frame).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
		expect(frame).toContain('title red');
		expect(frame).toContain('bell  and  osc');
	});
});
