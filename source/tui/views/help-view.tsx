/**
 * Help: every key, what it does, and which are disabled and why; long lines wrap. Keys come
 * in groups; when they do not all fit, one group is shown at a time (←/→ or Tab switch), so
 * at 80x24 nothing needs scrolling; a group still too long for the terminal scrolls.
 */

import { Box, Text } from 'ink';
import { blockedReason } from '../commands/availability.js';
import { COMMANDS, type Command, HELP_GROUPS } from '../commands/registry.js';
import { linePosition, type ScrollInfo, textWindow } from '../render/table-window.js';
import { fitCell, truncate } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import { useConsole, useConsoleStore } from './use-console.js';

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
	/** A group's title. */
	heading?: boolean;
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

/** The lines of every group, each under its title (when all fit, help shows them so). */
function allGroupLines(
	bindings: ReadonlyArray<{
		command: Command;
		keys: string;
		description: string;
		disabled: string | null;
	}>,
	width: number,
): HelpLine[] {
	return HELP_GROUPS.flatMap((g, i) => [
		...(i > 0 ? [{ keys: '', text: '', disabled: false }] : []),
		{ keys: '', text: g.title, disabled: false, heading: true },
		...helpLines(
			bindings.filter((b) => g.commands.includes(b.command)),
			width,
		),
	]);
}

/** The title line naming the groups, the shown one in brackets. */
function groupsText(current: number): string {
	return HELP_GROUPS.map((g, i) => (i === current ? `[${g.title}]` : g.title)).join(' · ');
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
	const group = useConsole((s) => s.helpGroup);
	const state = store.getState();
	const bindings = COMMANDS.map((c) => ({
		command: c.id,
		keys: c.keys,
		description: c.description,
		disabled: blockedReason(state, c.id, state.helpReturn),
	}));
	const body = Math.max(0, height - 1);
	const all = allGroupLines(bindings, width);
	const paged = all.length > body;
	const current = Math.max(0, Math.min(HELP_GROUPS.length - 1, group));
	const lines = paged
		? helpLines(
				bindings.filter((b) => HELP_GROUPS[current]?.commands.includes(b.command)),
				width,
			)
		: all;
	const total = lines.length;
	const start = textWindow(total, body, scroll, scrollInfo);
	const shownCount = Math.min(body, total - start);
	const title = paged
		? `Keys · ${groupsText(current)} · ←→ groups${total > body ? ` · ${linePosition(start, shownCount, total)} ↑↓ scroll` : ''} · Esc returns`
		: `Keys · Esc or ? returns · disabled keys say why`;
	const render = (l: HelpLine, key: string) => (
		<Text key={key} wrap="truncate" dimColor={l.disabled} bold={l.heading}>
			{l.heading ? (
				<Text color={theme.accent}>{l.text}</Text>
			) : (
				<>
					<Text bold color={l.disabled ? theme.muted : theme.accent}>
						{fitCell(l.keys, HELP_KEY_WIDTH)}
					</Text>
					<Text color={l.disabled ? theme.muted : undefined}>{l.text}</Text>
				</>
			)}
		</Text>
	);
	return (
		<Box flexDirection="column" height={height}>
			<Text bold wrap="truncate">
				{truncate(title, width)}
			</Text>
			<Box flexDirection="column" width={width}>
				{lines.slice(start, start + body).map((l, i) => render(l, String(start + i)))}
			</Box>
		</Box>
	);
}
