/**
 * The narration pane of the narrated demo (`ctpool --demo --narrate`): the sentence being
 * told, whole, then the ones told before it (newest first, each whole or not at all), under
 * a title saying whether the narration plays or is paused and how many sentences wait.
 * Beside the table on a wide terminal, below it on a narrow one (80x24): sentences wrap,
 * never cut. Space pauses or resumes, n tells the next (narrate-pause.ts, narrate-next.ts).
 */

import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { displayWidth, truncate } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import type { NarrationView } from '../store/store.js';
import { useConsole } from './use-console.js';

/** The narrowest terminal that shows the pane beside the table (narrower: below it). */
export const NARRATION_SIDE_MIN_COLUMNS = 110;
/** Rows the table keeps when the pane is below it (its header and six members). */
const TABLE_KEEP_ROWS = 7;
/** The most rows the sentences told before take below the table. */
const BELOW_TOLD_ROWS = 4;

/** One line of the pane and its tone. */
export interface NarrationPaneLine {
	text: string;
	tone: 'title' | 'current' | 'told' | 'blank';
}

/** The pane's title: playing or paused, how many wait, and the keys when width allows. */
export function narrationTitle(n: NarrationView, width = Number.POSITIVE_INFINITY): string {
	const state = n.paused ? '⏸ paused' : '▶ telling';
	const waiting = n.waiting > 0 ? ` · ${n.waiting} waiting` : '';
	const keys = n.paused ? 'Space resumes, n next' : 'Space pauses, n next';
	const full = `── narration · ${state}${waiting} · ${keys} ──`;
	return displayWidth(full) <= width ? full : `── narration · ${state}${waiting} ──`;
}

/** The lines of the sentence being told, wrapped to width (never cut). */
function currentLines(n: NarrationView, width: number): string[] {
	if (!n.current) return wrapText('The story begins in a moment…', width, { whole: true });
	return wrapText(n.current.text, width, { whole: true });
}

/**
 * The pane's lines in height rows of width columns: the title, the current sentence whole,
 * then the sentences told before it, newest first, as many as fit whole.
 */
export function narrationPaneLines(
	n: NarrationView,
	width: number,
	height: number,
): NarrationPaneLine[] {
	const w = Math.max(10, width);
	const out: NarrationPaneLine[] = [{ text: truncate(narrationTitle(n, w), w), tone: 'title' }];
	for (const text of currentLines(n, w)) out.push({ text, tone: 'current' });
	for (const line of [...n.told].reverse()) {
		const wrapped = wrapText(line.text, w, { whole: true });
		if (out.length + 1 + wrapped.length > height) break;
		// a space: Ink gives an empty line no height
		out.push({ text: ' ', tone: 'blank' });
		for (const text of wrapped) out.push({ text, tone: 'told' });
	}
	return out.slice(0, Math.max(0, height));
}

/** The rows the pane takes below the table (narrow terminals), of body rows. */
export function narrationBelowHeight(n: NarrationView, columns: number, body: number): number {
	const need = 1 + currentLines(n, Math.max(10, columns)).length;
	const extra = Math.max(0, Math.min(BELOW_TOLD_ROWS, body - TABLE_KEEP_ROWS - need));
	return Math.max(0, Math.min(body, need + extra));
}

/** The width of the pane beside the table (wide terminals). */
export function narrationSideWidth(columns: number): number {
	return Math.max(34, Math.min(48, Math.floor(columns / 3)));
}

/** Props of the pane. */
export interface NarrationPaneProps {
	narration: NarrationView;
	width: number;
	height: number;
}

/** The narration pane. */
export function NarrationPane({ narration, width, height }: NarrationPaneProps) {
	const theme = useTheme();
	const lines = narrationPaneLines(narration, width, height);
	return (
		<Box flexDirection="column" width={width} height={height}>
			{lines.map((l, i) => (
				<Text
					// biome-ignore lint/suspicious/noArrayIndexKey: the lines are positions in the pane
					key={i}
					wrap="truncate"
					bold={l.tone === 'title' || l.tone === 'current'}
					color={l.tone === 'title' ? theme.accent : l.tone === 'told' ? theme.muted : undefined}
				>
					{l.text}
				</Text>
			))}
		</Box>
	);
}

/** Props of WithNarration. */
export interface WithNarrationProps {
	width: number;
	height: number;
	/** The table, given the room the pane leaves it. */
	children: (width: number, height: number) => ReactNode;
}

/**
 * A table with the narration beside it (wide terminals) or below it (narrow ones); the table
 * alone when the console does not narrate.
 */
export function WithNarration({ width, height, children }: WithNarrationProps) {
	const narration = useConsole((s) => s.narration);
	if (!narration) return <>{children(width, height)}</>;
	if (width >= NARRATION_SIDE_MIN_COLUMNS) {
		const side = narrationSideWidth(width);
		const table = width - side - 2;
		return (
			<Box flexDirection="row" height={height}>
				<Box width={table} flexDirection="column">
					{children(table, height)}
				</Box>
				<Box width={2} />
				<NarrationPane narration={narration} width={side} height={height} />
			</Box>
		);
	}
	const below = narrationBelowHeight(narration, width, height);
	return (
		<Box flexDirection="column" height={height}>
			{children(width, height - below)}
			<NarrationPane narration={narration} width={width} height={below} />
		</Box>
	);
}
