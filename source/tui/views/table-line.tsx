/** One line of a table: cells fitted to their columns, coloured by tone. */

import chalk from 'chalk';
import { Text } from 'ink';
import { memo } from 'react';
import type { MemberState } from '../../pool/index.js';
import type { Cell, CellTone, PlacedColumn } from '../render/table-layout.js';
import { fitCell } from '../render/text-fit.js';
import { type Theme, useTheme } from '../render/theme.js';

/** The colour of a tone. */
export function toneColour(theme: Theme, tone: CellTone, state?: MemberState): string | undefined {
	switch (tone) {
		case 'state':
			return state ? theme.state(state) : undefined;
		case 'warn':
			return theme.warn;
		case 'error':
			return theme.error;
		case 'muted':
			return theme.muted;
		default:
			return undefined;
	}
}

/** Props of a table line. */
export interface TableLineProps {
	columns: readonly PlacedColumn[];
	cells: readonly Cell[];
	state?: MemberState;
	selected?: boolean;
	dim?: boolean;
	bold?: boolean;
	/** Draw a two-column gutter that marks the selected line (when colours and styles may be off). */
	gutter?: boolean;
	/** Draw a two-column mark column: `*` when true, blank when false, none when undefined. */
	mark?: boolean;
	/** Draw a two-column trace column: `»` when the open plan touches the member, blank when not, none when undefined. */
	traced?: boolean;
}

/** A column title with the sort arrow, kept within its width. */
export function sortedTitle(title: string, width: number, reverse: boolean): string {
	const arrow = reverse ? '↓' : '↑';
	return title.length + 1 > width
		? `${title.slice(0, Math.max(0, width - 1))}${arrow}`
		: `${title}${arrow}`;
}

/** Whether two lines show the same: the same columns, cells (text and tone) and marks. */
export function sameLine(a: TableLineProps, b: TableLineProps): boolean {
	if (
		a.state !== b.state ||
		a.selected !== b.selected ||
		a.dim !== b.dim ||
		a.bold !== b.bold ||
		a.gutter !== b.gutter ||
		a.mark !== b.mark ||
		a.traced !== b.traced ||
		a.cells.length !== b.cells.length ||
		a.columns.length !== b.columns.length
	)
		return false;
	for (let i = 0; i < a.columns.length; i++) {
		const x = a.columns[i] as PlacedColumn;
		const y = b.columns[i] as PlacedColumn;
		if (x !== y && (x.key !== y.key || x.width !== y.width || x.align !== y.align)) return false;
	}
	for (let i = 0; i < a.cells.length; i++) {
		const x = a.cells[i] as Cell;
		const y = b.cells[i] as Cell;
		if (x.text !== y.text || x.tone !== y.tone) return false;
	}
	return true;
}

/**
 * Text in a colour, bold or not, as Ink's own Text would style it (the same chalk, so the same
 * escapes, and none when the terminal has no colours).
 */
function styled(text: string, colour: string | undefined, bold = false): string {
	let out = text;
	if (colour)
		out = (chalk as unknown as Record<string, (t: string) => string>)[colour]?.(out) ?? out;
	if (bold) out = chalk.bold(out);
	return out;
}

/**
 * The text of a table line, its cells fitted and coloured: one string under one Text, so a
 * line is one element for React and Ink to make, not one per cell (a table of 30 lines of 12
 * cells was 1,100 elements, the largest part of the console's first frame).
 */
function lineText(props: TableLineProps, theme: Theme): string {
	const { columns, cells, state, selected, gutter, mark, traced } = props;
	const accent = selected ? undefined : theme.accent;
	let out = gutter ? (selected ? '› ' : '  ') : '';
	if (mark !== undefined) out += styled(mark ? '* ' : '  ', accent, true);
	if (traced !== undefined) out += styled(traced ? '» ' : '  ', accent, true);
	for (let i = 0; i < columns.length; i++) {
		const col = columns[i] as PlacedColumn;
		const cell = cells[i] ?? { text: '' };
		const sep = i < columns.length - 1 ? ' ' : '';
		out += styled(
			fitCell(cell.text, col.width, col.align) + sep,
			selected ? undefined : toneColour(theme, cell.tone, state),
		);
	}
	return out;
}

/**
 * A table line (exactly one terminal line). Under a live watch most lines of a table stay
 * the same from one batch to the next; those are not rendered again.
 */
export const TableLine = memo(function TableLine(props: TableLineProps) {
	const theme = useTheme();
	return (
		<Text wrap="truncate" inverse={props.selected} dimColor={props.dim} bold={props.bold}>
			{lineText(props, theme)}
		</Text>
	);
}, sameLine);
