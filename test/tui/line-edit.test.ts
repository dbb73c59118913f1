/** Readline keys in a prompt's line (issue 24, finding 9): moves, cuts and inserts at the cursor. */

import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { NO_KEY } from '../../source/tui/commands/keys.js';
import { type EditedLine, editLine, withCursor } from '../../source/tui/prompts/line-edit.js';

const NONE: Key = NO_KEY;

/** Applies key presses (`C-x` ctrl, `M-x` alt, `<left>` etc., else text) to a line. */
function press(line: EditedLine, ...keys: string[]): EditedLine {
	let out = line;
	for (const k of keys) {
		let next: EditedLine | null;
		if (k.startsWith('C-')) next = editLine(out, k.slice(2), { ...NONE, ctrl: true });
		else if (k.startsWith('M-')) next = editLine(out, k.slice(2), { ...NONE, meta: true });
		else if (k === '<left>') next = editLine(out, '', { ...NONE, leftArrow: true });
		else if (k === '<right>') next = editLine(out, '', { ...NONE, rightArrow: true });
		else if (k === '<home>') next = editLine(out, '', { ...NONE, home: true });
		else if (k === '<end>') next = editLine(out, '', { ...NONE, end: true });
		else if (k === '<bs>') next = editLine(out, '', { ...NONE, backspace: true });
		else next = editLine(out, k, NONE);
		if (!next) throw new Error(`${k} did not edit`);
		out = next;
	}
	return out;
}

const reason = 'set by admin in the console';
const end: EditedLine = { value: reason, cursor: reason.length };

describe('readline keys in a prompt', () => {
	it('Ctrl-U clears a prefilled reason at once; typing replaces it', () => {
		expect(press(end, 'C-u', 'disk full')).toEqual({ value: 'disk full', cursor: 9 });
	});

	it('Ctrl-W cuts the word before the cursor, spaces before it too', () => {
		expect(press(end, 'C-w').value).toBe('set by admin in the ');
		expect(press(end, 'C-w', 'C-w').value).toBe('set by admin in ');
	});

	it('Ctrl-A / Ctrl-E and Home / End go to the start and the end; text goes in at the cursor', () => {
		expect(press(end, 'C-a', 'x')).toEqual({ value: `x${reason}`, cursor: 1 });
		expect(press(end, '<home>', 'C-e', '!').value).toBe(`${reason}!`);
		expect(press(end, 'C-a', '<end>', '?').value).toBe(`${reason}?`);
	});

	it('Alt-B / Alt-F move a word; arrows a character; Ctrl-K cuts to the end', () => {
		const at = press(end, 'M-b', 'M-b');
		expect(at.cursor).toBe(reason.indexOf('the console'));
		expect(press(at, 'C-k').value).toBe('set by admin in ');
		expect(press(at, 'M-f').cursor).toBe(reason.indexOf(' console'));
		expect(press(at, '<left>', '<left>', '<right>').cursor).toBe(reason.indexOf('the') - 1);
	});

	it('Backspace deletes before the cursor, Ctrl-D under it; neither goes past the ends', () => {
		const mid = press({ value: 'abc', cursor: 3 }, '<left>');
		expect(press(mid, '<bs>')).toEqual({ value: 'ac', cursor: 1 });
		expect(press(mid, 'C-d')).toEqual({ value: 'ab', cursor: 2 });
		expect(press({ value: 'abc', cursor: 0 }, '<bs>', '<left>')).toEqual({
			value: 'abc',
			cursor: 0,
		});
	});

	it('the cursor is drawn where it is; a control character typed is not inserted', () => {
		expect(withCursor({ value: 'abc', cursor: 1 })).toBe('a▏bc');
		expect(withCursor({ value: 'abc' })).toBe('abc▏');
		expect(editLine(end, '\u001b[31m', NONE)).toBeNull();
	});
});
