/** The columns of the pools table and what each shows of a pool. */

import { toMillis } from '../../pool/index.js';
import { rolloutText } from '../../pool/rollout.js';
import type { ColumnSpec } from '../render/table-layout.js';
import type { ListedKinds } from '../store/store.js';
import { ageSince } from './age.js';
import type { Cell } from './member-columns.js';
import { type PoolDerivation, poolRollout } from './pool-derivation.js';

/** The pool columns. */
export type PoolColumn =
	| 'namespace'
	| 'name'
	| 'image'
	| 'size'
	| 'ready'
	| 'claimed'
	| 'free'
	| 'soon'
	| 'refused'
	| 'unschedulable'
	| 'drifted'
	| 'failed'
	| 'expired'
	| 'exhausted'
	| 'reconcile';

/**
 * The pool columns, in display order; NAMESPACE first when the console watches every
 * namespace (namespaceWidth > 0).
 */
export function poolColumns(nameWidth: number, namespaceWidth = 0): ColumnSpec<PoolColumn>[] {
	const name = Math.max(4, Math.min(nameWidth, 40));
	const ns = Math.max(9, Math.min(namespaceWidth, 30));
	return [
		...(namespaceWidth > 0
			? [{ key: 'namespace' as const, title: 'NAMESPACE', min: ns, max: ns, priority: 0 }]
			: []),
		{ key: 'name', title: 'POOL', min: name, max: name, priority: 0 },
		// IMAGE gives way first, before any column that says why a pool has no free member
		{ key: 'image', title: 'IMAGE', min: 12, want: 24, ample: 32, max: 48, priority: 3 },
		{ key: 'size', title: 'SIZE/OBS', min: 8, max: 9, priority: 0, align: 'right' },
		{ key: 'ready', title: 'READY', min: 5, max: 5, priority: 1, align: 'right' },
		{ key: 'claimed', title: 'CLAIMED', min: 7, max: 7, priority: 2, align: 'right' },
		{ key: 'free', title: 'FREE NOW', min: 8, max: 8, priority: 0, align: 'right' },
		{ key: 'soon', title: 'SOON', min: 4, max: 4, priority: 2, align: 'right' },
		{ key: 'refused', title: 'REFUSED/1H', min: 10, max: 10, priority: 2, align: 'right' },
		{ key: 'unschedulable', title: 'UNSCHED', min: 7, max: 7, priority: 1, align: 'right' },
		{ key: 'drifted', title: 'DRIFTED', min: 7, max: 7, priority: 1, align: 'right' },
		{ key: 'failed', title: 'FAILED', min: 6, max: 6, priority: 1, align: 'right' },
		{ key: 'expired', title: 'EXPIRED', min: 7, max: 7, priority: 1, align: 'right' },
		{ key: 'exhausted', title: 'EXHAUSTED', min: 9, max: 9, priority: 1 },
		{
			key: 'reconcile',
			title: 'LAST RECONCILE',
			min: 14,
			want: 24,
			ample: 60,
			max: Number.POSITIVE_INFINITY,
			priority: 4,
		},
	];
}

/** The last reconcile as the recorded status tells it. */
export function lastReconcile(p: PoolDerivation, now: number): Cell {
	if (p.specError) return { text: p.specError, tone: 'error' };
	if (!p.defined) return { text: 'no definition (members only)', tone: 'warn' };
	const r = p.recorded;
	if (!r && p.statusProblem) return { text: p.statusProblem, tone: 'error' };
	if (!r) return { text: 'never', tone: 'muted' };
	const ago = ageSince(toMillis(r.observedAt), now);
	const when = ago ? `${ago} ago` : r.observedAt;
	if (r.errors.length > 0)
		return {
			text: `${when}: ${r.errors.length} error${r.errors.length > 1 ? 's' : ''}: ${r.errors[0]}`,
			tone: 'error',
		};
	return { text: `${when}: ok`, tone: undefined };
}

/** What stands for a figure not known yet (its list has not arrived). */
export const UNKNOWN = '…';

/**
 * What a pool shows in a column (not yet sanitised or fitted); a figure whose list has not
 * arrived yet shows UNKNOWN, never a zero. `refused` is the claims refused over the last
 * hour (null: Events cannot be read; undefined: not read yet). The namespace column shows
 * `namespace`.
 */
export function poolCell(
	column: PoolColumn,
	p: PoolDerivation,
	now: number,
	known: ListedKinds = { spec: true, counts: true },
	refused?: number | null,
	namespace = '',
): Cell {
	if (column === 'namespace') return { text: namespace };
	if (column === 'refused')
		return refused === undefined
			? { text: UNKNOWN, tone: 'muted' }
			: refused === null
				? { text: '?', tone: 'muted' }
				: { text: String(refused), tone: refused > 0 ? 'warn' : undefined };
	const c = p.counts;
	const unknown: Cell = { text: UNKNOWN, tone: 'muted' };
	if (!known.spec && (column === 'image' || column === 'reconcile')) return unknown;
	if (
		!known.counts &&
		column !== 'name' &&
		column !== 'image' &&
		column !== 'size' &&
		column !== 'reconcile'
	)
		return unknown;
	if (column === 'size' && (!known.spec || !known.counts))
		return {
			text: `${known.spec ? (p.spec ? p.spec.size : '?') : UNKNOWN}/${known.counts ? c.observed : UNKNOWN}`,
		};
	switch (column) {
		case 'name':
			return { text: p.pool };
		case 'image':
			return { text: p.spec?.image ?? '?' };
		case 'size':
			return { text: `${p.spec ? p.spec.size : '?'}/${c.observed}` };
		case 'ready':
			return { text: String(c.ready) };
		case 'claimed':
			return { text: String(c.claimed) };
		case 'free':
			return {
				text: String(c.claimableNow),
				tone: c.free === 0 && c.observed > 0 ? 'error' : c.claimableNow === 0 ? 'warn' : undefined,
			};
		case 'soon':
			return { text: String(c.claimableSoon), tone: c.claimableSoon > 0 ? undefined : 'muted' };
		case 'unschedulable':
			return { text: String(c.unschedulable), tone: c.unschedulable > 0 ? 'warn' : undefined };
		case 'drifted':
			return { text: String(c.drifted), tone: c.drifted > 0 ? 'warn' : undefined };
		case 'failed':
			return { text: String(c.failed), tone: c.failed > 0 ? 'error' : undefined };
		case 'expired':
			return { text: String(c.expired), tone: c.expired > 0 ? 'warn' : undefined };
		case 'exhausted':
			return c.exhausted ? { text: 'EXHAUSTED', tone: 'error' } : { text: 'no', tone: 'muted' };
		case 'reconcile': {
			const last = lastReconcile(p, now);
			const rollout = poolRollout(p);
			// a rollout under way leads the column (an error keeps its tone)
			return rollout ? { ...last, text: `${rolloutText(rollout)} · ${last.text}` } : last;
		}
	}
}

/** The title of a pool column. */
export function poolColumnTitle(column: PoolColumn): string {
	return poolColumns(4).find((c) => c.key === column)?.title ?? column.toUpperCase();
}
