/** The hits of the find on the pools screen: where each member is, its state, holder and claim age. */

import { Box, Text } from 'ink';
import { useMemo, useRef } from 'react';
import type { FindHit } from '../../pool/find.js';
import { ageSince } from '../../text/age.js';
import { findHits } from '../model/find-hits.js';
import {
	type Cell,
	type ColumnRecord,
	columnSpecs,
	layoutColumns,
} from '../render/table-layout.js';
import { windowStart } from '../render/table-window.js';
import { clean } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import { TableLine } from './table-line.js';
import { useConsole } from './use-console.js';

/** The columns of the find hits. */
export type FindColumn = 'namespace' | 'pool' | 'member' | 'state' | 'holder' | 'claimed';

/** What the hits hold that the columns fit to: the widest names, and whether NAMESPACE is shown. */
export interface HitValues {
	namespace: number;
	pool: number;
	member: number;
	allNamespaces: boolean;
}

/** The widest namespace, pool and member names among the hits. */
export function hitValues(hits: readonly FindHit[], allNamespaces: boolean): HitValues {
	const w = { namespace: 0, pool: 0, member: 0, allNamespaces };
	for (const h of hits) {
		w.namespace = Math.max(w.namespace, h.namespace.length);
		w.pool = Math.max(w.pool, h.pool.length);
		w.member = Math.max(w.member, h.member.length || 12);
	}
	return w;
}

/** A find column: header, width rules and cell (the hits keep the find's order: no sort key). */
export interface FindColumnRecord extends ColumnRecord<FindColumn, HitValues> {
	/** What a hit shows in the column (not yet sanitised or fitted). */
	cell: (hit: FindHit, now: number) => Cell;
}

const clampWidth = (min: number, widest: number, max: number) =>
	Math.max(min, Math.min(widest, max));
const MUTED_DASH: Cell = { text: '-', tone: 'muted' };

/** The find columns (NAMESPACE only across namespaces), no wider than the names they show. */
export const FIND_COLUMNS: readonly FindColumnRecord[] = [
	{
		key: 'namespace',
		title: 'NAMESPACE',
		rules: (v) =>
			v.allNamespaces && {
				min: 9,
				want: 12,
				max: clampWidth(9, v.namespace, 30),
				priority: 0,
			},
		cell: (hit) => ({ text: hit.namespace }),
	},
	{
		key: 'pool',
		title: 'POOL',
		rules: (v) => ({ min: 6, want: 10, max: clampWidth(6, v.pool, 30), priority: 0 }),
		cell: (hit) => ({ text: hit.pool }),
	},
	{
		key: 'member',
		title: 'MEMBER',
		rules: (v) => ({ min: 8, want: 10, max: clampWidth(8, v.member, 40), priority: 0 }),
		cell: (hit) => (hit.member ? { text: hit.member } : { text: '(no members)', tone: 'muted' }),
	},
	{
		key: 'state',
		title: 'STATE',
		rules: () => ({ min: 13, max: 13, priority: 0 }),
		cell: (hit) => ({ text: hit.state, tone: 'state' }),
	},
	{
		key: 'holder',
		title: 'HOLDER',
		rules: () => ({ min: 12, want: 20, max: Number.POSITIVE_INFINITY, priority: 0 }),
		cell: (hit) => (hit.holder ? { text: hit.holder } : MUTED_DASH),
	},
	{
		key: 'claimed',
		title: 'CLAIMED',
		rules: () => ({ min: 7, max: 9, priority: 0, align: 'right' }),
		cell: (hit, now) =>
			hit.claimedAt === null ? MUTED_DASH : { text: ageSince(hit.claimedAt, now) },
	},
];

/** Props of the find hits. */
export interface FindViewProps {
	width: number;
	height: number;
}

/** The find hits (the first line says what is found and how to use it). */
export function FindView({ width, height }: FindViewProps) {
	const theme = useTheme();
	const hits = useConsole(findHits);
	const find = useConsole((s) => s.find.trim());
	const selected = useConsole((s) => s.findSelected);
	const now = useConsole((s) => s.now);
	const allNamespaces = useConsole((s) => s.session.allNamespaces);
	const poolCount = useConsole((s) => s.poolNames.length);
	const start = useRef(0);
	const gutter = theme.color ? 0 : 2;
	const columns = useMemo(
		() => layoutColumns(columnSpecs(FIND_COLUMNS, hitValues(hits, allNamespaces)), width - gutter),
		[allNamespaces, hits, width, gutter],
	);
	const at = Math.max(0, Math.min(selected, hits.length - 1));
	const bodyHeight = Math.max(0, height - 2);
	start.current = windowStart(hits.length, at, bodyHeight, start.current);
	const shown = hits.slice(start.current, start.current + bodyHeight);
	const summary = `find ${find}: ${hits.length} hit${hits.length === 1 ? '' : 's'} in ${poolCount} pool${poolCount === 1 ? '' : 's'} · ⏎ opens · Esc clears`;
	return (
		<Box flexDirection="column" height={height}>
			<Text wrap="truncate" color={theme.accent} bold>
				{clean(summary)}
			</Text>
			<TableLine
				columns={columns}
				gutter={gutter > 0}
				cells={columns.map((c) => ({ text: c.title }))}
				bold
			/>
			{hits.length === 0 ? (
				<Text color={theme.muted} wrap="truncate">
					{clean(`no pool, member or holder matches "${find}"`)}
				</Text>
			) : (
				shown.map((hit, i) => (
					<TableLine
						key={`${hit.key}\u0000${hit.member}`}
						columns={columns}
						gutter={gutter > 0}
						cells={columns.map((c) => c.record.cell(hit, now))}
						{...(hit.state ? { state: hit.state } : {})}
						selected={start.current + i === at}
					/>
				))
			)}
		</Box>
	);
}
