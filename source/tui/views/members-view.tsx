/** The members table of one pool, windowed: only the rows that fit are rendered. */

import { Box, Text } from 'ink';
import { useEffect, useMemo, useRef } from 'react';
import {
	type ColumnValues,
	columnValues,
	type MemberCellContext,
	type MemberColumn,
	memberColumns,
} from '../model/member-columns.js';
import { filterSummary } from '../model/member-filter.js';
import type { MemberRow } from '../model/member-row.js';
import { UNKNOWN } from '../model/pool-columns.js';
import { poolName } from '../model/pool-index.js';
import { connectionView } from '../model/staleness.js';
import { touchedMembers } from '../model/trace-model.js';
import { layoutColumns } from '../render/table-layout.js';
import { windowStart } from '../render/table-window.js';
import { clean } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import { filteredSorted, listedKinds, selectedPosition } from '../store/store.js';
import { sortedTitle, TableLine } from './table-line.js';
import { useConsole } from './use-console.js';

const NO_ROWS: readonly MemberRow[] = [];
const NO_VALUES: ColumnValues = columnValues(NO_ROWS);

/** A title with the position right-aligned in width, when both fit (else the title alone). */
export function withPosition(title: string, position: string, width: number): string {
	if (!position || title.length + 1 + position.length > width) return title;
	return title + position.padStart(width - title.length);
}

/** Props of the members table. */
export interface MembersViewProps {
	width: number;
	/** Lines available, the column titles included. */
	height: number;
}

/** The members table. */
export function MembersView({ width, height }: MembersViewProps) {
	const theme = useTheme();
	const rows = useConsole((s) => (s.pool ? s.pools[s.pool]?.rows : undefined) ?? NO_ROWS);
	const values = useConsole(
		(s) => (s.pool ? s.pools[s.pool]?.columnValues : undefined) ?? NO_VALUES,
	);
	const filter = useConsole((s) => s.filter);
	const selected = useConsole((s) => s.selected);
	const selectedIndex = useConsole((s) => s.selectedIndex);
	const now = useConsole((s) => s.now);
	const stale = useConsole((s) => connectionView(s.connection, s.now).stale);
	const pool = useConsole((s) => (s.pool ? poolName(s.pool) : null));
	const defined = useConsole((s) => (s.pool ? Boolean(s.pools[s.pool]?.defined) : false));
	const listed = useConsole((s) => {
		const k = listedKinds(s);
		return k.spec && k.counts;
	});
	const sort = useConsole((s) => s.memberSort);
	const marks = useConsole((s) => s.marks);
	const markColumn = useConsole((s) => s.markColumn);
	const tracedPlan = useConsole((s) =>
		s.pool !== null && s.traceMarks === s.pool ? (s.traces[s.pool] ?? null) : null,
	);
	const traced = useMemo(() => (tracedPlan ? touchedMembers(tracedPlan) : null), [tracedPlan]);
	const showMembers = useConsole((s) => s.showMembers);
	const start = useRef(0);
	// without colours (NO_COLOR, --no-color) styles may be off too: a gutter marks the selection
	const gutter = (theme.color ? 0 : 2) + (markColumn ? 2 : 0) + (traced ? 2 : 0);

	const visible = useMemo(() => filteredSorted(rows, filter, sort), [rows, filter, sort]);
	const wanted = useMemo(() => memberColumns(values), [values]);
	const columns = useMemo(() => layoutColumns(wanted, width - gutter), [wanted, width, gutter]);
	const hidden = useMemo(() => {
		const shownKeys = new Set<MemberColumn>(columns.map((c) => c.key));
		return new Set(wanted.map((c) => c.key).filter((k) => !shownKeys.has(k)));
	}, [columns, wanted]);
	const context: MemberCellContext = useMemo(() => ({ now, hidden }), [now, hidden]);

	const summary = filterSummary(filter, visible.length, rows.length);
	const bodyHeight = Math.max(0, height - 1 - (summary ? 1 : 0));
	const at = selectedPosition({ selected, selectedIndex }, visible);
	start.current = windowStart(visible.length, at, bodyHeight, start.current);
	const shown = visible.slice(start.current, start.current + bodyHeight);
	const sorted = sort.column !== 'name' || sort.reverse;
	const position = visible.length > bodyHeight ? `${at + 1}/${visible.length}` : '';
	const gutterOn = !theme.color;
	// the watch hands over changes of these rows at once
	useEffect(() => showMembers(shown.map((r) => r.name)), [showMembers, shown]);
	useEffect(() => () => showMembers([]), [showMembers]);

	let empty: string | null = null;
	if (visible.length === 0)
		empty =
			rows.length > 0
				? `no member matches the filter "${filter}" (Esc clears it)`
				: !listed
					? `${UNKNOWN} reading the members of pool ${pool ?? ''}`
					: !defined && pool
						? `pool ${pool} has no definition and no members in this namespace`
						: 'no members yet';

	return (
		<Box flexDirection="column" height={height}>
			{summary ? (
				<Text wrap="truncate" color={theme.accent} bold>
					{clean(summary)}
				</Text>
			) : null}
			<TableLine
				columns={columns}
				gutter={gutterOn}
				mark={markColumn ? false : undefined}
				traced={traced ? false : undefined}
				cells={columns.map((c, i) => {
					const title =
						sorted && c.key === sort.column ? sortedTitle(c.title, c.width, sort.reverse) : c.title;
					// a long list says where the selection is, at the right of the last title
					return {
						text: i === columns.length - 1 ? withPosition(title, position, c.width) : title,
					};
				})}
				bold
				dim={stale}
			/>
			{empty ? (
				<Text color={theme.muted} wrap="truncate">
					{empty}
				</Text>
			) : (
				shown.map((row) => (
					<TableLine
						key={row.name}
						columns={columns}
						gutter={gutterOn}
						mark={markColumn ? marks.has(row.name) : undefined}
						traced={traced ? traced.has(row.name) : undefined}
						cells={columns.map((c) => c.record.cell(row, context))}
						state={row.state}
						selected={row.name === visible[at]?.name}
						dim={stale}
					/>
				))
			)}
		</Box>
	);
}
