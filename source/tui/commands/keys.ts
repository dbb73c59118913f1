/**
 * The console's commands and the keys bound to them, derived from the command records
 * (registry.ts): what a key press means, and the bindings as help lists them.
 */

import type { Key } from 'ink';
import type { ConsoleState } from '../store/store.js';
import { type CommandRecord, matches } from './command.js';
import { COMMANDS, Command, HELP_GROUPS, recordOf } from './registry.js';

export { Command, HELP_GROUPS };

/** A key binding as the help screen lists it. */
export interface KeyBinding {
	command: Command;
	/** The keys, as shown to the user. */
	keys: string;
	/** The short label for the key hint line. */
	hint: string;
	/** What the command does. */
	description: string;
	/** The command changes the cluster (gone in read-only mode). */
	mutating: boolean;
}

function bindingOfRecord(r: (typeof COMMANDS)[number]): KeyBinding {
	return {
		command: r.id,
		keys: r.keys,
		hint: r.hint,
		description: r.description,
		mutating: r.mutating,
	};
}

/** Every binding, in the order help lists them. */
export const KEY_BINDINGS: readonly KeyBinding[] = COMMANDS.map(bindingOfRecord);

/** The bindings of a help group, in KEY_BINDINGS order. */
export function groupBindings(group: number): KeyBinding[] {
	const commands = HELP_GROUPS[group]?.commands ?? [];
	return KEY_BINDINGS.filter((b) => commands.includes(b.command));
}

/** The binding of a command. */
export function bindingOf(command: Command): KeyBinding {
	const r = recordOf(command);
	return { command, keys: r.keys, hint: r.hint, description: r.description, mutating: r.mutating };
}

/** The commands that change the cluster. */
export const MUTATING_COMMANDS: readonly Command[] = COMMANDS.filter((c) => c.mutating).map(
	(c) => c.id,
);

/** The commands whose keys count now: those of an active mode first, then those of no mode. */
function liveCommands(state: ConsoleState | undefined): CommandRecord[] {
	const all: readonly CommandRecord[] = COMMANDS;
	const moded = all.filter((c) => state !== undefined && c.mode?.active(state) === true);
	return [...moded, ...all.filter((c) => !c.mode)];
}

/**
 * The command a key press means, or null: a Ctrl chord first, then a named key (Ink marks a
 * lone Esc as meta too), then a plain character. With the state, the commands of an active
 * mode (the narrated demo's Space) come before the others; without, no mode is active.
 */
export function commandOf(input: string, key: Key, state?: ConsoleState): Command | null {
	const live = liveCommands(state);
	for (const kind of ['ctrl', 'key', 'char'] as const)
		for (const c of live)
			if (c.match.some((m) => kind in m && matches(m, input, key))) return c.id as Command;
	return null;
}

/**
 * The command of an active mode that takes a command's plain keys now (Space while
 * narrating: mark's key is the narration's), or null; a moded command is never taken.
 */
export function keysTakenBy(state: ConsoleState, record: CommandRecord): CommandRecord | null {
	if (record.mode) return null;
	const chars = record.match.flatMap((m) => ('char' in m ? [m.char] : []));
	if (chars.length === 0) return null;
	for (const c of COMMANDS as readonly CommandRecord[])
		if (
			c.mode?.active(state) === true &&
			c.match.some((m) => 'char' in m && chars.includes(m.char))
		)
			return c;
	return null;
}

/** Whether a command's keys reach it now: its mode is active (or it has none) and no mode takes them. */
export function keysLive(state: ConsoleState, record: CommandRecord): boolean {
	if (record.mode) return record.mode.active(state);
	return keysTakenBy(state, record) === null;
}

/** A key press with no key flag set (a plain character). */
export const NO_KEY: Key = {
	upArrow: false,
	downArrow: false,
	leftArrow: false,
	rightArrow: false,
	pageDown: false,
	pageUp: false,
	home: false,
	end: false,
	return: false,
	escape: false,
	ctrl: false,
	shift: false,
	tab: false,
	backspace: false,
	delete: false,
	meta: false,
	super: false,
	hyper: false,
	capsLock: false,
	numLock: false,
};

/**
 * One key press per character. Ink hands over a burst of plain text (typed fast, pasted, or
 * batched by SSH) as one input; the console treats it as the keys it is made of.
 */
export function keyPresses(input: string, key: Key): Array<[string, Key]> {
	const chars = Array.from(input);
	if (chars.length <= 1) return [[input, key]];
	return chars.map((c): [string, Key] => {
		if (c === '\r' || c === '\n') return ['', { ...NO_KEY, return: true }];
		if (c === '\u007f' || c === '\b') return ['', { ...NO_KEY, backspace: true }];
		if (c === '\t') return ['', { ...NO_KEY, tab: true }];
		// a control character in a burst is its Ctrl key (Ctrl-U, Ctrl-W in a prompt)
		const code = c.charCodeAt(0);
		if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }];
		return [c, { ...NO_KEY, shift: c !== c.toLowerCase() }];
	});
}
