/** The pools of the namespace, one row each. */

import { Box, Text } from 'ink';
import { useMemo, useRef } from 'react';
import { poolCell, poolColumns, UNKNOWN } from '../pool-columns.js';
import { connectionView } from '../staleness.js';
import { knownFigures, sortedPoolNames } from '../store.js';
import { layoutColumns } from '../table-layout.js';
import { windowStart } from '../table-window.js';
import { useTheme } from '../theme.js';
import { useConsole } from '../use-console.js';
import { sortedTitle, TableLine } from './table-line.js';

/** Props of the pools table. */
export interface PoolsViewProps {
	width: number;
	height: number;
}

/** The pools table. */
export function PoolsView({ width, height }: PoolsViewProps) {
	const theme = useTheme();
	const names = useConsole(sortedPoolNames);
	const sort = useConsole((s) => s.poolSort);
	const pools = useConsole((s) => s.pools);
	const selectedPool = useConsole((s) => s.selectedPool);
	const now = useConsole((s) => s.now);
	const stale = useConsole((s) => connectionView(s.connection, s.now).stale);
	const namespace = useConsole((s) => s.session.namespace);
	const knownSpec = useConsole((s) => knownFigures(s).spec);
	const knownCounts = useConsole((s) => knownFigures(s).counts);
	const known = useMemo(() => ({ spec: knownSpec, counts: knownCounts }), [knownSpec, knownCounts]);
	const start = useRef(0);
	// without colours (NO_COLOR, --no-color) styles may be off too: a gutter marks the selection
	const gutter = theme.color ? 0 : 2;
	const nameWidth = useMemo(() => names.reduce((w, n) => Math.max(w, n.length), 4), [names]);
	const columns = useMemo(
		() => layoutColumns(poolColumns(nameWidth), width - gutter),
		[nameWidth, width, gutter],
	);
	const bodyHeight = Math.max(0, height - 1);
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
					{knownSpec
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
							cells={columns.map((c) => poolCell(c.key, p, now, known))}
							selected={start.current + i === at}
							dim={stale}
						/>
					);
				})
			)}
		</Box>
	);
}
