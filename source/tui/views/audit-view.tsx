/** The audit screen: who did what to the pools, from ctpool's Events, newest first; the selected line whole below. */

import { Box, Text } from 'ink';
import { useMemo, useRef } from 'react';
import {
	type AuditEntry,
	auditActionText,
	auditActorText,
	DEFAULT_EVENT_TTL_MS,
	droppedText,
} from '../../pool/audit.js';
import { clockTime, formatAge } from '../../text/age.js';
import { auditLines, parseAuditFilter } from '../model/audit-filter.js';
import { type Cell, type ColumnSpec, layoutColumns } from '../render/table-layout.js';
import { windowStart } from '../render/table-window.js';
import { displayWidth, truncate } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import { type AuditFeed, type AuditScope, selectedAuditPosition } from '../store/store.js';
import { TableLine } from './table-line.js';
import { useConsole } from './use-console.js';

/** Props of the audit screen. */
export interface AuditViewProps {
	width: number;
	height: number;
}

type AuditColumn = 'age' | 'namespace' | 'pool' | 'action' | 'member' | 'holder' | 'by' | 'detail';

/** NAMESPACE: across namespaces (-A) a pool's name alone may be two pools. */
const NAMESPACE_COLUMN: ColumnSpec<AuditColumn> = {
	key: 'namespace',
	title: 'NAMESPACE',
	min: 9,
	want: 10,
	max: 20,
	priority: 1,
};

const COLUMNS: readonly ColumnSpec<AuditColumn>[] = [
	{ key: 'age', title: 'AGE', min: 4, max: 5, priority: 0 },
	{ key: 'pool', title: 'POOL', min: 6, want: 8, max: 16, priority: 1 },
	{ key: 'action', title: 'ACTION', min: 10, want: 16, max: 22, priority: 0 },
	{ key: 'member', title: 'MEMBER', min: 8, want: 12, max: 24, priority: 0 },
	{ key: 'holder', title: 'HOLDER', min: 10, want: 16, ample: 22, max: 32, priority: 1 },
	{ key: 'by', title: 'BY', min: 10, want: 16, ample: 22, max: 40, priority: 0 },
	{
		key: 'detail',
		title: 'DETAIL',
		min: 10,
		want: 20,
		max: Number.POSITIVE_INFINITY,
		priority: 3,
	},
];

/** What a line shows in a column (not yet sanitised or fitted). */
export function auditCell(column: AuditColumn, e: AuditEntry, now: number): Cell {
	switch (column) {
		case 'age':
			// a time the Event stated beyond its creation was clamped: marked, not trusted
			return e.clamped
				? { text: `${formatAge(Math.max(0, now - e.time))}!`, tone: 'warn' }
				: { text: formatAge(Math.max(0, now - e.time)), tone: 'muted' };
		case 'namespace':
			return { text: e.namespace };
		case 'pool':
			return { text: e.pool };
		case 'action':
			return {
				text: auditActionText(e),
				tone: e.type === 'Warning' ? 'error' : e.force ? 'warn' : undefined,
			};
		case 'member':
			return { text: e.member || e.target || '-' };
		case 'holder':
			return { text: e.holder || '-' };
		case 'by':
			return { text: auditActorText(e) };
		case 'detail':
			return { text: e.detail, tone: 'muted' };
	}
}

/** What the scope is, in words. */
export function scopeText(scope: AuditScope): string {
	if (scope.member) return `member ${scope.member}`;
	if (scope.pool) return `pool ${scope.pool}`;
	return 'all pools';
}

/**
 * How far back the audit reaches: the cluster's Event TTL, the oldest line seen, and the
 * lines the console's cap left out.
 */
export function keptText(feed: AuditFeed, now: number): string {
	const ttl = `Events kept ~${Math.round(DEFAULT_EVENT_TTL_MS / 3_600_000)}h by the cluster`;
	const kept =
		feed.oldest === null ? ttl : `${ttl}, oldest ${formatAge(Math.max(0, now - feed.oldest))} ago`;
	const dropped = droppedText({
		dropped: feed.dropped ?? 0,
		droppedClamped: feed.droppedClamped ?? 0,
	});
	return dropped ? `${kept} · ${dropped}` : kept;
}

/** The audit screen's warning, fitted to its width: what Events prove, and what does. */
export const SCREEN_TRUST_NOTE =
	"Events are written by their reporters: anyone who may create events can forge a line. The cluster's own record is the API server's audit log (--audit-log-path).";

/** Lines of the trust note at most. */
const TRUST_LINES = 2;

/** Lines of the selected line's whole text at most. */
const WHOLE_LINES = 4;

/** The audit screen. */
export function AuditView({ width, height }: AuditViewProps) {
	const theme = useTheme();
	const feed = useConsole((s) => s.audit);
	const view = useConsole((s) => s.auditView);
	const now = useConsole((s) => s.now);
	const lines = useConsole((s) => auditLines(s));
	const start = useRef(0);
	const gutter = theme.color ? 0 : 2;
	const allNamespaces = useConsole((s) => s.session.allNamespaces);
	const columns = useMemo(
		() =>
			layoutColumns(
				allNamespaces ? [COLUMNS[0]!, NAMESPACE_COLUMN, ...COLUMNS.slice(1)] : COLUMNS,
				width - gutter,
			),
		[width, gutter, allNamespaces],
	);
	const at = selectedAuditPosition(view, lines);
	const selected = lines[at];
	const whole = selected
		? wrapText(
				`${clockTime(selected.time)} ${selected.namespace ? `ns ${selected.namespace} · ` : ''}${selected.message}${selected.instance ? ` · from ${selected.instance}` : ''}${selected.clamped ? ' · its stated time lies beyond its creation (forged, or a wrong clock): shown at its creation' : ''}`,
				Math.max(10, width),
			).slice(0, WHOLE_LINES)
		: [];
	const problem = parseAuditFilter(view.filter).problem;
	const trust = wrapText(SCREEN_TRUST_NOTE, Math.max(10, width)).slice(0, TRUST_LINES);
	// title, column titles, the rows, then a rule and the selected line whole, then the note
	const bodyHeight = Math.max(
		1,
		height - 2 - (whole.length > 0 ? whole.length + 1 : 0) - trust.length,
	);
	start.current = windowStart(lines.length, at, bodyHeight, start.current);
	const shown = lines.slice(start.current, start.current + bodyHeight);
	const status = problem
		? problem
		: feed.status === 'denied'
			? `cannot read Events: ${feed.message}`
			: feed.status === 'error'
				? `Events: ${feed.message}`
				: feed.status === 'loading' || feed.status === 'off'
					? 'reading Events…'
					: keptText(feed, now);
	const bad = Boolean(problem) || feed.status === 'denied' || feed.status === 'error';
	const title = truncate(
		`audit · ${scopeText(view.scope)} · ${lines.length} line${lines.length === 1 ? '' : 's'}${view.filter && !problem ? ` matching ${view.filter}` : ''} · `,
		width,
	);
	return (
		<Box flexDirection="column" height={height}>
			<Text wrap="truncate">
				<Text bold>{title}</Text>
				<Text color={bad ? theme.error : theme.muted}>
					{truncate(status, Math.max(0, width - displayWidth(title)))}
				</Text>
			</Text>
			<TableLine
				columns={columns}
				gutter={gutter > 0}
				cells={columns.map((c) => ({ text: c.title }))}
				bold
			/>
			{lines.length === 0 ? (
				<Text color={problem ? theme.error : theme.muted} wrap="truncate">
					{problem ||
						(feed.status === 'denied'
							? 'ctpool needs list and watch on events to show the audit (ctpool rbac prints them)'
							: `nothing recorded for ${scopeText(view.scope)}${view.filter ? ' that matches the filter' : ''} in the Events the cluster keeps`)}
				</Text>
			) : (
				shown.map((e, i) => (
					<TableLine
						key={e.name}
						columns={columns}
						gutter={gutter > 0}
						cells={columns.map((c) => auditCell(c.key, e, now))}
						selected={start.current + i === at}
					/>
				))
			)}
			{whole.length > 0 ? (
				<>
					<Text color={theme.muted}>{'─'.repeat(Math.max(0, width))}</Text>
					{whole.map((line, i) => (
						// biome-ignore lint/suspicious/noArrayIndexKey: the lines of one text, in order
						<Text key={i} wrap="truncate">
							{line}
						</Text>
					))}
				</>
			) : null}
			{trust.map((line, i) => (
				// biome-ignore lint/suspicious/noArrayIndexKey: the lines of one text, in order
				<Text key={`trust-${i}`} color={theme.muted} wrap="truncate">
					{line}
				</Text>
			))}
		</Box>
	);
}
