/** The key hint line: the keys of the current screen; read-only removes the mutating ones. */

import { Text } from 'ink';
import { staticBlock } from '../commands/availability.js';
import { Command, KEY_BINDINGS, MOVE_COMMANDS } from '../commands/keys.js';
import { actsOn } from '../commands/screen-keys.js';
import { displayWidth } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import type { ConsoleState, Screen } from '../store/store.js';
import { useConsole, useConsoleStore, useTerminalSize } from './use-console.js';

/** The commands the bar leaves to help: moving, reversing the sort, the mark helpers. */
const NOT_IN_BAR: readonly Command[] = [
	...MOVE_COMMANDS,
	Command.Reverse,
	Command.MarkExpired,
	Command.Unmark,
];

/** Whether the bar shows a command's key on a screen: it must act there. */
function shownOn(screen: Screen, command: Command): boolean {
	// G follows the log; elsewhere moving is in help
	if (command === Command.Bottom) return screen === 'logs';
	return !NOT_IN_BAR.includes(command) && actsOn(screen, command);
}

/** The hints as (keys, label, disabled) triples for a state. */
export function keyHints(
	state: ConsoleState,
): Array<{ keys: string; hint: string; disabled: boolean }> {
	const out: Array<{ keys: string; hint: string; disabled: boolean }> = [];
	for (const b of KEY_BINDINGS) {
		if (!shownOn(state.screen, b.command)) continue;
		if (b.mutating && state.session.readOnly) continue;
		const keys = b.command === Command.Quit ? 'q' : b.keys;
		const hint = b.command === Command.Filter && state.screen === 'pools' ? 'find' : b.hint;
		out.push({ keys, hint, disabled: staticBlock(state, b.command) !== null });
	}
	return out;
}

/** The hints that give way first when the line is too narrow, first to go first. */
const GIVE_WAY: readonly string[] = [
	'trace',
	'audit',
	'bottom',
	'mark',
	'sort',
	'container log',
	'log',
	'console',
	'maint',
	'loop',
	'reconcile',
	'release',
	'claim',
	'filter',
	'prev',
	'next',
	'previous',
	'find',
	'back',
	'open',
];

/** A hint's width on the line: its keys, a space, its label and a space. */
function hintWidth(h: { keys: string; hint: string }): number {
	return displayWidth(h.keys === 'Enter' ? '⏎' : h.keys) + displayWidth(h.hint) + 2;
}

/**
 * The hints that fit in width columns: the others give way in GIVE_WAY order, so `? help`
 * and `q quit` always stay.
 */
export function fitHints<T extends { keys: string; hint: string }>(
	hints: readonly T[],
	width: number,
): T[] {
	let out = [...hints];
	const used = () => out.reduce((w, h) => w + hintWidth(h), 0);
	for (const name of GIVE_WAY) {
		// the trailing space of the last hint may fall off the edge
		if (used() - 1 <= width) break;
		out = out.filter((h) => h.hint !== name);
	}
	return out;
}

/** The key hint line. */
export function KeyHints() {
	const theme = useTheme();
	const store = useConsoleStore();
	useConsole((s) => s.screen);
	useConsole((s) => s.denied);
	const { columns } = useTerminalSize();
	const hints = fitHints(keyHints(store.getState()), columns);
	return (
		<Text wrap="truncate">
			{hints.map((h) => (
				<Text key={h.keys} dimColor={h.disabled}>
					<Text bold color={h.disabled ? theme.muted : theme.accent}>
						{h.keys === 'Enter' ? '⏎' : h.keys}
					</Text>
					<Text color={h.disabled ? theme.muted : undefined}> {h.hint} </Text>
				</Text>
			))}
		</Text>
	);
}
