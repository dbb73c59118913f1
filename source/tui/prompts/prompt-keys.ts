/** What the prompt handlers share: their type, line editing, and scrolling a listed confirmation. */

import type { Key } from 'ink';
import type { KeyContext } from '../commands/command.js';
import type { Prompt } from '../store/store.js';
import { editLine, lineOf } from './line-edit.js';

/** Handles a key press while a prompt of one kind is open. */
export type PromptHandler<K extends Prompt['kind']> = (
	prompt: Extract<Prompt, { kind: K }>,
	input: string,
	key: Key,
	ctx: KeyContext,
) => void;

/** The prompt's line after a key press (readline keys; see line-edit.ts), or null. */
export function edited<P extends { value: string; cursor?: number }>(
	prompt: P,
	input: string,
	key: Key,
): P | null {
	const line = editLine(lineOf(prompt), input, key);
	return line ? { ...prompt, value: line.value, cursor: line.cursor } : null;
}

/**
 * The keys of a confirmation over a list: ↑ ↓ PgUp PgDn (k j too, unless typing) scroll it;
 * the new first shown line (kept within the list), or null when the key was none of them.
 */
export function listScroll(
	scroll: number,
	length: number,
	key: Key,
	input: string,
	typing: boolean,
): number | null {
	let next: number | null = null;
	if (key.upArrow || (!typing && input === 'k')) next = scroll - 1;
	else if (key.downArrow || (!typing && input === 'j')) next = scroll + 1;
	else if (key.pageUp) next = scroll - 5;
	else if (key.pageDown) next = scroll + 5;
	return next === null ? null : Math.max(0, Math.min(length - 1, next));
}

/** y or Y: a confirmation accepted. */
export function isYes(input: string): boolean {
	return input === 'y' || input === 'Y';
}

/** n, N or Esc: a confirmation cancelled. */
export function isNo(input: string, key: Key): boolean {
	return input === 'n' || input === 'N' || key.escape;
}
