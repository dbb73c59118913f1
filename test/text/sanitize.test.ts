import { describe, expect, it } from 'vitest';
import { sanitize } from '../../source/text/sanitize.js';

describe('sanitize', () => {
	it.each([
		['plain text is untouched', 'alice@example.com', 'alice@example.com'],
		['CJK and emoji are kept', '桌面-デスク 🖥️', '桌面-デスク 🖥️'],
		['a colour sequence is removed', '\u001b[31mred\u001b[0m', 'red'],
		['a cursor move is removed', 'a\u001b[2Jb\u001b[10;10H', 'ab'],
		['an OSC title (BEL) is removed', '\u001b]0;pwned\u0007x', 'x'],
		[
			'an OSC 8 link (ST) is removed',
			'\u001b]8;;http://evil\u001b\\link\u001b]8;;\u001b\\',
			'link',
		],
		['a DCS string is removed', '\u001bPq#0;2;0;0;0\u001b\\ok', 'ok'],
		['a C1 CSI is removed', '\u009b31mred', 'red'],
		['a lone ESC is removed', 'a\u001bb', 'ab'],
		['ESC c (reset) is made inert', 'a\u001bcb', 'acb'],
		['newlines and tabs become spaces', 'a\nb\tc\rd', 'a b c d'],
		['NUL and DEL become spaces', 'a\u0000b\u007fc', 'a b c'],
		['bidi overrides are dropped', 'abc\u202edcba', 'abcdcba'],
		['zero-width characters are dropped', 'a\u200bb', 'ab'],
		['numbers are stringified', 42, '42'],
		['undefined is empty', undefined, ''],
		['null is empty', null, ''],
	])('%s', (_what, input, out) => {
		expect(sanitize(input)).toBe(out);
	});

	it('leaves no escape or control byte in any output', () => {
		let all = '';
		for (let c = 0; c < 0x100; c++) all += `${String.fromCharCode(c)}[1m`;
		const out = sanitize(all);
		expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
	});
});
