/** The pools of the namespace, one row each. */

import { Box, Text } from 'ink';
import { useMemo, useRef } from 'react';
import { refusedByPool } from '../model/audit-filter.js';
import { poolHint, sessionHintPool } from '../model/member-hint.js';
import { poolCell, poolColumns, UNKNOWN } from '../model/pool-columns.js';
import { splitPoolKey } from '../model/pool-index.js';
import { connectionView } from '../model/staleness.js';
import { layoutColumns } from '../render/table-layout.js';
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
	const pools = useConsole((s) => s.pools);
	const selectedPool = useConsole((s) => s.selectedPool);
	const now = useConsole((s) => s.now);
	const stale = useConsole((s) => connectionView(s.connection, s.now).stale);
	const namespace = useConsole((s) => s.session.namespace);
	const session = useConsole((s) => s.session);
	const allNamespaces = useConsole((s) => s.session.allNamespaces);
	const knownSpec = useConsole((s) => listedKinds(s).spec);
	const knownCounts = useConsole((s) => listedKinds(s).counts);
	const known = useMemo(() => ({ spec: knownSpec, counts: knownCounts }), [knownSpec, knownCounts]);
	const refused = useConsole((s) => refusedByPool(s));
	const start = useRef(0);
	// without colours (NO_COLOR, --no-color) styles may be off too: a gutter marks the selection
	const gutter = theme.color ? 0 : 2;
	const [nameWidth, namespaceWidth] = useMemo(() => {
		let pool = 4;
		let ns = 0;
		for (const key of names) {
			const k = splitPoolKey(key);
			pool = Math.max(pool, k.pool.length);
			ns = Math.max(ns, k.namespace?.length ?? 0);
		}
		return [pool, allNamespaces ? Math.max(ns, 1) : 0];
	}, [names, allNamespaces]);
	const columns = useMemo(
		() => layoutColumns(poolColumns(nameWidth, namespaceWidth), width - gutter),
		[nameWidth, namespaceWidth, width, gutter],
	);
	// what to do now about troubled pools: one line under the table, the selected pool's
	// hint first, else how many pools need attention
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
	// the row shown selected (the first when none is chosen yet)
	const selectedHint = hints.get(names[Math.max(0, names.indexOf(selectedPool ?? ''))] ?? '');
	const hintText =
		selectedHint ??
		(hints.size > 0
			? `${hints.size} pool${hints.size === 1 ? ' needs' : 's need'} attention: ${[...hints.keys()].join(', ')}`
			: '');
	const hintWrapped = hintText
		? wrapText(`${selectedHint ? 'Do: ' : ''}${hintText}`, Math.max(20, width))
		: [];
	// at most three lines (every cause of the pool), and only while the table keeps a row
	const hintRows = Math.min(hintWrapped.length, 3, Math.max(0, height - 2));
	const bodyHeight = Math.max(0, height - 1 - hintRows);
	const at = Math.max(0, names.indexOf(selectedPool ?? ''));
	start.current = windowStart(names.length, at, bodyHeight, start.current);
	const shown = names.slice(start.current, start.current + bodyHeight);
	return (
		<Box flexDirection="column" height={height}>
			<TableLine
				columns={columns}
				gutter={gutter > 0}
				cells={columns.map((c) => ({
					text:
						(sort.column !== 'name' || sort.reverse) && c.key === sort.column
							? sortedTitle(c.title, c.width, sort.reverse)
							: c.title,
				}))}
				bold
				dim={stale}
			/>
			{names.length === 0 ? (
				<Text color={theme.muted} wrap="truncate">
					{allNamespaces
						? knownSpec
							? 'no CT pools in any namespace'
							: `${UNKNOWN} reading the pools of every namespace`
						: knownSpec
							? `no CT pools in namespace ${namespace}`
							: `${UNKNOWN} reading the pools of namespace ${namespace}`}
				</Text>
			) : (
				shown.map((name, i) => {
					const p = pools[name];
					if (!p) return null;
					return (
						<TableLine
							key={name}
							columns={columns}
							gutter={gutter > 0}
							cells={columns.map((c) =>
								poolCell(
									c.key,
									p,
									now,
									known,
									refused ? (refused.get(name) ?? 0) : refused,
									splitPoolKey(name).namespace ?? namespace,
								),
							)}
							selected={start.current + i === at}
							dim={stale}
						/>
					);
				})
			)}
			{hintRows > 0 ? (
				<Box flexGrow={1} flexDirection="column" justifyContent="flex-end">
					{hintWrapped.slice(0, hintRows).map((l, i) => (
						<Text key={String(i)} wrap="truncate" color={selectedHint ? theme.warn : theme.muted}>
							{clean(l)}
						</Text>
					))}
				</Box>
			) : null}
		</Box>
	);
}
