/** The key hint line: the keys of the current screen; read-only removes the mutating ones. */

import { Text } from 'ink';
import { staticBlock } from '../availability.js';
import { Command, KEY_BINDINGS } from '../keys.js';
import type { ConsoleState } from '../store.js';
import { useTheme } from '../theme.js';
import { useConsole, useConsoleStore } from '../use-console.js';

const SHOWN: readonly Command[] = [
	Command.Open,
	Command.Back,
	Command.Filter,
	Command.Claim,
	Command.Release,
	Command.Reconcile,
	Command.Loop,
	Command.Maintenance,
	Command.Console,
	Command.Log,
	Command.Help,
	Command.Quit,
];

/** The hints as (keys, label, disabled) triples for a state. */
export function keyHints(
	state: ConsoleState,
): Array<{ keys: string; hint: string; disabled: boolean }> {
	const out: Array<{ keys: string; hint: string; disabled: boolean }> = [];
	for (const b of KEY_BINDINGS) {
		if (!SHOWN.includes(b.command)) continue;
		if (b.mutating && state.session.readOnly) continue;
		if (
			state.screen === 'pools' &&
			(b.command === Command.Filter ||
				b.command === Command.Release ||
				b.command === Command.Maintenance ||
				b.command === Command.Console)
		)
			continue;
		const keys = b.command === Command.Quit ? 'q' : b.keys;
		out.push({ keys, hint: b.hint, disabled: staticBlock(state, b.command) !== null });
	}
	return out;
}

/** The key hint line. */
export function KeyHints() {
	const theme = useTheme();
	const store = useConsoleStore();
	useConsole((s) => s.screen);
	useConsole((s) => s.denied);
	const hints = keyHints(store.getState());
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
