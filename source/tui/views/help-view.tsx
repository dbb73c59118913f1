/** Help: every key, what it does, and which are disabled and why. */

import { Box, Text } from 'ink';
import { blockedReason } from '../availability.js';
import { KEY_BINDINGS } from '../keys.js';
import { fitCell } from '../text-fit.js';
import { useTheme } from '../theme.js';
import { useConsole, useConsoleStore } from '../use-console.js';

/** Props of the help screen. */
export interface HelpViewProps {
	width: number;
	height: number;
}

interface HelpLine {
	keys: string;
	description: string;
	disabled: string | null;
}

/** The help screen. */
export function HelpView({ width, height }: HelpViewProps) {
	const theme = useTheme();
	const store = useConsoleStore();
	// re-render when anything that changes availability changes
	useConsole((s) => s.revision);
	useConsole((s) => s.denied);
	useConsole((s) => s.busy);
	const state = store.getState();
	const lines: HelpLine[] = KEY_BINDINGS.map((b) => ({
		keys: b.keys,
		description: b.description,
		disabled: blockedReason(state, b.command, state.helpReturn),
	}));
	const body = Math.max(0, height - 1);
	const columns = lines.length > body && width >= 100 ? 2 : 1;
	const perColumn = Math.ceil(lines.length / columns);
	const colWidth = Math.floor((width - (columns - 1) * 2) / columns);
	const keyWidth = 9;
	const render = (l: HelpLine) => {
		const text = l.disabled ? `${l.description} — disabled: ${l.disabled}` : l.description;
		return (
			<Text key={l.keys} wrap="truncate" dimColor={Boolean(l.disabled)}>
				<Text bold color={l.disabled ? theme.muted : theme.accent}>
					{fitCell(l.keys, keyWidth)}
				</Text>
				<Text color={l.disabled ? theme.muted : undefined}>
					{fitCell(text, Math.max(0, colWidth - keyWidth - 1))}
				</Text>
			</Text>
		);
	};
	const groups: HelpLine[][] = [];
	for (let i = 0; i < columns; i++) groups.push(lines.slice(i * perColumn, (i + 1) * perColumn));
	const overflow = perColumn > body;
	return (
		<Box flexDirection="column" height={height}>
			<Text bold wrap="truncate">
				Keys · Esc or ? returns · disabled keys say why
			</Text>
			<Box flexDirection="row">
				{groups.map((g, i) => (
					<Box
						key={String(i)}
						flexDirection="column"
						width={colWidth}
						marginRight={i < columns - 1 ? 2 : 0}
					>
						{(overflow ? g.slice(0, Math.max(0, body - 1)) : g).map((l) => render(l))}
						{overflow ? (
							<Text color={theme.muted}>… enlarge the terminal to see every key</Text>
						) : null}
					</Box>
				))}
			</Box>
		</Box>
	);
}
