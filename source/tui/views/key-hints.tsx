/** The key hint line: the keys of the current screen; read-only removes the mutating ones. */

import { Text } from 'ink';
import { staticBlockOf } from '../commands/command.js';
import { keysLive } from '../commands/keys.js';
import { COMMANDS } from '../commands/registry.js';
import { inBar } from '../commands/screen-keys.js';
import { displayWidth } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import type { ConsoleState } from '../store/store.js';
import { useConsole, useConsoleStore, useTerminalSize } from './use-console.js';

/** The hints as (keys, label, disabled) triples for a state: each command's bar entry. */
export function keyHints(
	state: ConsoleState,
): Array<{ keys: string; hint: string; disabled: boolean }> {
	const out: Array<{ keys: string; hint: string; disabled: boolean }> = [];
	for (const c of COMMANDS) {
		if (!inBar(state.screen, c.id)) continue;
		// the narrated demo's keys only while narrating; mark's Space then is the narration's
		if (!keysLive(state, c)) continue;
		if (c.mutating && state.session.readOnly) continue;
		out.push({
			keys: c.barKeys ?? c.keys,
			hint: c.barHint?.[state.screen] ?? c.hint,
			disabled: staticBlockOf(state, c) !== null,
		});
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
			{hints.map((h, i) => (
				<Text key={h.keys} dimColor={h.disabled}>
					<Text bold color={h.disabled ? theme.muted : theme.accent}>
						{h.keys === 'Enter' ? '⏎' : h.keys}
					</Text>
					{/* the last hint's trailing space would make a full line one too wide (cut with …) */}
					<Text color={h.disabled ? theme.muted : undefined}>
						{` ${h.hint}${i < hints.length - 1 ? ' ' : ''}`}
					</Text>
				</Text>
			))}
		</Text>
	);
}
