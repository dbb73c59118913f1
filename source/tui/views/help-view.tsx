/** Help: every key, what it does, and which are disabled and why; long lines wrap and the list scrolls. */

import { Box, Text } from 'ink';
import { blockedReason } from '../availability.js';
import { KEY_BINDINGS } from '../keys.js';
import { linePosition, type ScrollInfo, textWindow } from '../table-window.js';
import { fitCell, truncate } from '../text-fit.js';
import { wrapText } from '../text-wrap.js';
import { useTheme } from '../theme.js';
import { useConsole, useConsoleStore } from '../use-console.js';

/** Props of the help screen. */
export interface HelpViewProps {
	width: number;
	height: number;
	/** Set to how far the list can scroll. */
	scrollInfo: ScrollInfo;
}

/** One screen line of help: a key's first line carries its keys. */
export interface HelpLine {
	keys: string;
	text: string;
	disabled: boolean;
}

/** The width of the keys column. */
export const HELP_KEY_WIDTH = 10;

/** Every binding as help lines of width columns, descriptions wrapped (nothing is cut). */
export function helpLines(
	bindings: ReadonlyArray<{ keys: string; description: string; disabled: string | null }>,
	width: number,
): HelpLine[] {
	const out: HelpLine[] = [];
	const textWidth = Math.max(10, width - HELP_KEY_WIDTH);
	for (const b of bindings) {
		const text = b.disabled ? `${b.description} — disabled: ${b.disabled}` : b.description;
		for (const [i, t] of wrapText(text, textWidth, { whole: true }).entries())
			out.push({ keys: i === 0 ? b.keys : '', text: t, disabled: Boolean(b.disabled) });
	}
	return out;
}

/** The help screen. */
export function HelpView({ width, height, scrollInfo }: HelpViewProps) {
	const theme = useTheme();
	const store = useConsoleStore();
	// re-render when anything that changes availability changes
	useConsole((s) => s.revision);
	useConsole((s) => s.denied);
	useConsole((s) => s.busy);
	useConsole((s) => s.marks);
	const scroll = useConsole((s) => s.scroll);
	const state = store.getState();
	const bindings = KEY_BINDINGS.map((b) => ({
		keys: b.keys,
		description: b.description,
		disabled: blockedReason(state, b.command, state.helpReturn),
	}));
	const body = Math.max(0, height - 1);
	// two columns on a wide terminal when one does not fit; a key never splits between them
	let columns = [helpLines(bindings, width)];
	const colWidth = Math.floor((width - 2) / 2);
	if ((columns[0]?.length ?? 0) > body && width >= 120) {
		const lines = helpLines(bindings, colWidth);
		let split = Math.ceil(lines.length / 2);
		while (split < lines.length && lines[split]?.keys === '') split++;
		columns = [lines.slice(0, split), lines.slice(split)];
	}
	const total = Math.max(...columns.map((c) => c.length));
	const start = textWindow(total, body, scroll, scrollInfo);
	const shownCount = Math.min(body, total - start);
	const title = `Keys · ${linePosition(start, shownCount, total)}${total > body ? ' · ↑↓ PgUp PgDn scroll' : ''} · Esc or ? returns · disabled keys say why`;
	const render = (l: HelpLine, key: string) => (
		<Text key={key} wrap="truncate" dimColor={l.disabled}>
			<Text bold color={l.disabled ? theme.muted : theme.accent}>
				{fitCell(l.keys, HELP_KEY_WIDTH)}
			</Text>
			<Text color={l.disabled ? theme.muted : undefined}>{l.text}</Text>
		</Text>
	);
	return (
		<Box flexDirection="column" height={height}>
			<Text bold wrap="truncate">
				{truncate(title, width)}
			</Text>
			<Box flexDirection="row">
				{columns.map((c, ci) => (
					<Box
						key={String(ci)}
						flexDirection="column"
						width={columns.length > 1 ? colWidth : width}
						marginRight={ci < columns.length - 1 ? 2 : 0}
					>
						{c.slice(start, start + body).map((l, i) => render(l, String(start + i)))}
					</Box>
				))}
			</Box>
		</Box>
	);
}
