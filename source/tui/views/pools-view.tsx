/** The pools of the namespace, one row each. */

import { Box, Text } from 'ink';
import { useMemo, useRef } from 'react';
import { refusedByPool } from '../model/audit-filter.js';
import { poolHint, sessionHintPool } from '../model/member-hint.js';
import {
	type PoolCellContext,
	type PoolColumnRecord,
	poolCell,
	poolColumns,
	poolTableValues,
	UNKNOWN,
} from '../model/pool-columns.js';
import { splitPoolKey } from '../model/pool-index.js';
import { connectionView } from '../model/staleness.js';
import { layoutColumns, type PlacedColumn, type RecordSpec } from '../render/table-layout.js';
import { windowStart } from '../render/table-window.js';
import { clean } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import { listedKinds, sortedPoolNames } from '../store/store.js';
import { FindView } from './find-view.js';
import { sortedTitle, TableLine } from './table-line.js';
import { useConsole } from './use-console.js';

/** Props of the pools table. */
export interface PoolsViewProps {
	width: number;
	height: number;
}

/** The pools table, or the hits of the find while one is typed or kept. */
export function PoolsView({ width, height }: PoolsViewProps) {
	const finding = useConsole((s) => s.find.trim() !== '');
	return finding ? (
		<FindView width={width} height={height} />
	) : (
		<PoolsTable width={width} height={height} />
	);
}

/** The pools table. */
function PoolsTable({ width, height }: PoolsViewProps) {
	const theme = useTheme();
	const names = useConsole(sortedPoolNames);
	const sort = useConsole((s) => s.poolSort);
	const selectedPool = useConsole((s) => s.selectedPool);
	const stale = useConsole((s) => connectionView(s.connection, s.now).stale);
	const allNamespaces = useConsole((s) => s.session.allNamespaces);
	const start = useRef(0);
	// without colours (NO_COLOR, --no-color) styles may be off too: a gutter marks the selection
	const gutter = theme.color ? 0 : 2;
	const values = useMemo(() => poolTableValues(names, allNamespaces), [names, allNamespaces]);
	const columns = useMemo(
		() => layoutColumns(poolColumns(values), width - gutter),
		[values, width, gutter],
	);
	const hint = usePoolHint(names, selectedPool, width);
	// at most three lines (every cause of the pool), and only while the table keeps a row
	const hintRows = Math.min(hint.lines.length, 3, Math.max(0, height - 2));
	const bodyHeight = Math.max(0, height - 1 - hintRows);
	const at = Math.max(0, names.indexOf(selectedPool ?? ''));
	start.current = windowStart(names.length, at, bodyHeight, start.current);
	const sorted = sort.column !== 'name' || sort.reverse;
	return (
		<Box flexDirection="column" height={height}>
			<TableLine
				columns={columns}
				gutter={gutter > 0}
				cells={columns.map((c) => ({
					text:
						sorted && c.key === sort.column ? sortedTitle(c.title, c.width, sort.reverse) : c.title,
				}))}
				bold
				dim={stale}
			/>
			{names.length === 0 ? (
				<NoPools />
			) : (
				<PoolRows
					names={names.slice(start.current, start.current + bodyHeight)}
					columns={columns}
					gutter={gutter > 0}
					selected={at - start.current}
					dim={stale}
				/>
			)}
			{hintRows > 0 ? (
				<Box flexGrow={1} flexDirection="column" justifyContent="flex-end">
					{hint.lines.slice(0, hintRows).map((l, i) => (
						<Text key={String(i)} wrap="truncate" color={hint.selected ? theme.warn : theme.muted}>
							{clean(l)}
						</Text>
					))}
				</Box>
			) : null}
		</Box>
	);
}

/** What the pools table says while it has no pool. */
function NoPools() {
	const theme = useTheme();
	const namespace = useConsole((s) => s.session.namespace);
	const allNamespaces = useConsole((s) => s.session.allNamespaces);
	const knownSpec = useConsole((s) => listedKinds(s).spec);
	return (
		<Text color={theme.muted} wrap="truncate">
			{allNamespaces
				? knownSpec
					? 'no CT pools in any namespace'
					: `${UNKNOWN} reading the pools of every namespace`
				: knownSpec
					? `no CT pools in namespace ${namespace}`
					: `${UNKNOWN} reading the pools of namespace ${namespace}`}
		</Text>
	);
}

/** Props of the pools table's rows. */
interface PoolRowsProps {
	/** The pool keys shown, in order. */
	names: readonly string[];
	columns: readonly PlacedColumn<RecordSpec<PoolColumnRecord>>[];
	gutter: boolean;
	/** Which of the shown rows is selected. */
	selected: number;
	dim: boolean;
}

/** The shown rows of the pools table, each cell from its column's record. */
function PoolRows({ names, columns, gutter, selected, dim }: PoolRowsProps) {
	const pools = useConsole((s) => s.pools);
	const now = useConsole((s) => s.now);
	const namespace = useConsole((s) => s.session.namespace);
	const knownSpec = useConsole((s) => listedKinds(s).spec);
	const knownCounts = useConsole((s) => listedKinds(s).counts);
	const known = useMemo(() => ({ spec: knownSpec, counts: knownCounts }), [knownSpec, knownCounts]);
	const refused = useConsole((s) => refusedByPool(s));
	return names.map((name, i) => {
		const p = pools[name];
		if (!p) return null;
		const context: PoolCellContext = {
			now,
			known,
			refused: refused ? (refused.get(name) ?? 0) : refused,
			namespace: splitPoolKey(name).namespace ?? namespace,
		};
		return (
			<TableLine
				key={name}
				columns={columns}
				gutter={gutter}
				cells={columns.map((c) => poolCell(c.record, p, context))}
				selected={i === selected}
				dim={dim}
			/>
		);
	});
}

/**
 * What to do now about troubled pools: one line under the table, the selected pool's hint
 * first (the first row when none is chosen yet), else how many pools need attention; wrapped
 * to the width.
 */
function usePoolHint(
	names: readonly string[],
	selectedPool: string | null,
	width: number,
): { lines: string[]; selected: boolean } {
	const pools = useConsole((s) => s.pools);
	const session = useConsole((s) => s.session);
	const knownCounts = useConsole((s) => listedKinds(s).counts);
	const hints = useMemo(() => {
		const out = new Map<string, string>();
		if (!knownCounts) return out;
		for (const n of names) {
			const p = pools[n];
			const h = p ? poolHint(sessionHintPool(session, n, p)) : null;
			if (h) out.set(n, h);
		}
		return out;
	}, [names, pools, knownCounts, session]);
	const selectedHint = hints.get(names[Math.max(0, names.indexOf(selectedPool ?? ''))] ?? '');
	const text =
		selectedHint ??
		(hints.size > 0
			? `${hints.size} pool${hints.size === 1 ? ' needs' : 's need'} attention: ${[...hints.keys()].join(', ')}`
			: '');
	const lines = text ? wrapText(`${selectedHint ? 'Do: ' : ''}${text}`, Math.max(20, width)) : [];
	return { lines, selected: selectedHint !== undefined };
}
