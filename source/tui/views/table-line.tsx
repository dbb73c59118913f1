/** One line of a table: cells fitted to their columns, coloured by tone. */

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
 * A table line (exactly one terminal line). Under a live watch most lines of a table stay
 * the same from one batch to the next; those are not rendered again.
 */
export const TableLine = memo(function TableLine({
	columns,
	cells,
	state,
	selected,
	dim,
	bold,
	gutter,
	mark,
	traced,
}: TableLineProps) {
	const theme = useTheme();
	return (
		<Text wrap="truncate" inverse={selected} dimColor={dim} bold={bold}>
			{gutter ? (selected ? '› ' : '  ') : ''}
			{mark === undefined ? null : (
				<Text color={selected ? undefined : theme.accent} bold>
					{mark ? '* ' : '  '}
				</Text>
			)}
			{traced === undefined ? null : (
				<Text color={selected ? undefined : theme.accent} bold>
					{traced ? '» ' : '  '}
				</Text>
			)}
			{columns.map((col, i) => {
				const cell = cells[i] ?? { text: '' };
				const sep = i < columns.length - 1 ? ' ' : '';
				return (
					<Text key={col.key} color={selected ? undefined : toneColour(theme, cell.tone, state)}>
						{fitCell(cell.text, col.width, col.align)}
						{sep}
					</Text>
				);
			})}
		</Text>
	);
}, sameLine);
