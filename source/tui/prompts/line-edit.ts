/**
 * Editing a prompt's line the way readline does: the cursor moves with ←/→, Home/End,
 * Ctrl-A/Ctrl-E and Alt-B/Alt-F (a word at a time); Ctrl-U and Ctrl-K cut before and after
 * the cursor, Ctrl-W the word before it, Backspace the character before it and Ctrl-D the
 * one under it. Typed text is sanitised and goes in at the cursor.
 */

import type { Key } from 'ink';
import { sanitize } from '../../text/sanitize.js';

/** A line being edited: its text and where the cursor is (0..value.length). */
export interface EditedLine {
	value: string;
	cursor: number;
}

/** A prompt's line with its cursor: at the end when the prompt has none yet. */
export function lineOf(prompt: { value: string; cursor?: number }): EditedLine {
	const cursor = prompt.cursor ?? prompt.value.length;
	return { value: prompt.value, cursor: Math.max(0, Math.min(prompt.value.length, cursor)) };
}

/** The line as shown: the cursor drawn as a thin bar where it is. */
export function withCursor(prompt: { value: string; cursor?: number }): string {
	const { value, cursor } = lineOf(prompt);
	return `${value.slice(0, cursor)}▏${value.slice(cursor)}`;
}

/** Where the word before at starts (spaces before it skipped). */
function wordStart(value: string, at: number): number {
	let i = at;
	while (i > 0 && /\s/.test(value[i - 1] ?? '')) i--;
	while (i > 0 && !/\s/.test(value[i - 1] ?? '')) i--;
	return i;
}

/** Where the word after at ends (spaces before it skipped). */
function wordEnd(value: string, at: number): number {
	let i = at;
	while (i < value.length && /\s/.test(value[i] ?? '')) i++;
	while (i < value.length && !/\s/.test(value[i] ?? '')) i++;
	return i;
}

function printable(input: string, key: Key): boolean {
	return (
		input.length > 0 &&
		!key.ctrl &&
		!key.meta &&
		!key.return &&
		!key.escape &&
		!key.tab &&
		!/[\u0000-\u001f\u007f]/.test(input)
	);
}

/** A cursor move or a cut made by a control or Alt key, or null when the key is none of them. */
function controlEdit(line: EditedLine, input: string, key: Key): EditedLine | null {
	const { value, cursor } = line;
	const to = (c: number): EditedLine => ({ value, cursor: c });
	if (key.leftArrow) return to(Math.max(0, cursor - 1));
	if (key.rightArrow) return to(Math.min(value.length, cursor + 1));
	if (key.home) return to(0);
	if (key.end) return to(value.length);
	if (key.ctrl)
		switch (input) {
			case 'a':
				return to(0);
			case 'e':
				return to(value.length);
			case 'b':
				return to(Math.max(0, cursor - 1));
			case 'f':
				return to(Math.min(value.length, cursor + 1));
			case 'u':
				return { value: value.slice(cursor), cursor: 0 };
			case 'k':
				return { value: value.slice(0, cursor), cursor };
			case 'w': {
				const from = wordStart(value, cursor);
				return { value: value.slice(0, from) + value.slice(cursor), cursor: from };
			}
			case 'd':
				return { value: value.slice(0, cursor) + value.slice(cursor + 1), cursor };
			default:
				return null;
		}
	if (key.meta)
		switch (input) {
			case 'b':
				return to(wordStart(value, cursor));
			case 'f':
				return to(wordEnd(value, cursor));
			case 'd': {
				const end = wordEnd(value, cursor);
				return { value: value.slice(0, cursor) + value.slice(end), cursor };
			}
			default:
				return null;
		}
	return null;
}

/** The line after a key press, or null when the key does not edit it. */
export function editLine(line: EditedLine, input: string, key: Key): EditedLine | null {
	const control = controlEdit(line, input, key);
	if (control) return control;
	const { value, cursor } = line;
	if (key.backspace || key.delete) {
		if (cursor === 0) return line;
		return { value: value.slice(0, cursor - 1) + value.slice(cursor), cursor: cursor - 1 };
	}
	if (!printable(input, key)) return null;
	const text = sanitize(input);
	return {
		value: value.slice(0, cursor) + text + value.slice(cursor),
		cursor: cursor + text.length,
	};
}
