/** The columns of the pools table as records: header, width rules, cell and sort key. */

import { type PoolCounts, toMillis } from '../../pool/index.js';
import { rolloutText } from '../../pool/rollout.js';
import { ageSince } from '../../text/age.js';
import {
	type Cell,
	type CellTone,
	type ColumnRecord,
	columnSpecs,
	nameColumnRules,
	type RecordSpec,
} from '../render/table-layout.js';
import type { ListedKinds } from '../store/store.js';
import { type PoolDerivation, poolRollout } from './pool-derivation.js';
import { poolNamespace, splitPoolKey } from './pool-index.js';
import type { SortKey } from './sorting.js';

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

/** What the pools table's rows hold that the columns fit to. */
export interface PoolTableValues {
	/** The widest pool name. */
	nameWidth: number;
	/** The widest namespace; 0 when the console watches one namespace (no NAMESPACE column). */
	namespaceWidth: number;
}

/** The values of the pools table, from the pool keys (computed once per list of names). */
export function poolTableValues(keys: readonly string[], allNamespaces: boolean): PoolTableValues {
	let pool = 4;
	let ns = 0;
	for (const key of keys) {
		const k = splitPoolKey(key);
		pool = Math.max(pool, k.pool.length);
		ns = Math.max(ns, k.namespace?.length ?? 0);
	}
	return { nameWidth: pool, namespaceWidth: allNamespaces ? Math.max(ns, 1) : 0 };
}

/**
 * What a pool cell needs besides the pool: the time, which lists have arrived, the claims
 * refused over the last hour (null: Events cannot be read; undefined: not read yet) and the
 * pool's namespace.
 */
export interface PoolCellContext {
	now: number;
	known: ListedKinds;
	refused: number | null | undefined;
	namespace: string;
}

/** A pools table column: header, width rules, the list it needs, cell and sort key. */
export interface PoolColumnRecord extends ColumnRecord<PoolColumn, PoolTableValues> {
	/** The list the cell needs (it shows UNKNOWN until that list arrives); none: it needs none. */
	needs?: 'spec' | 'counts';
	/** What a pool shows in the column (not yet sanitised or fitted). */
	cell: (p: PoolDerivation, context: PoolCellContext) => Cell;
	/** The value a pool is sorted by (`refused`: its refused claims, null when not known). */
	sortKey: (p: PoolDerivation, refused: number | null) => SortKey;
}

/** A count column: right-aligned, its width fixed, shown in `tone` when above zero. */
function countColumn<K extends PoolColumn>(
	key: K,
	title: string,
	priority: number,
	count: (c: PoolCounts) => number,
	tone?: CellTone,
): PoolColumnRecord & { key: K } {
	return {
		key,
		title,
		rules: () => ({ min: title.length, max: title.length, priority, align: 'right' }),
		needs: 'counts',
		cell: (p) => {
			const n = count(p.counts);
			return { text: String(n), tone: n > 0 ? tone : undefined };
		},
		sortKey: (p) => count(p.counts),
	};
}

/** The record of each pool column, in display order (the type makes sure every column has one). */
const POOL_COLUMN_RECORDS: { [K in PoolColumn]: PoolColumnRecord & { key: K } } = {
	namespace: {
		key: 'namespace',
		title: 'NAMESPACE',
		rules: (v) => {
			if (v.namespaceWidth <= 0) return false;
			const ns = Math.max(9, Math.min(v.namespaceWidth, 30));
			return { min: ns, max: ns, priority: 0 };
		},
		cell: (_p, { namespace }) => ({ text: namespace }),
		sortKey: (p) => poolNamespace(p.pool, '') || null,
	},
	name: {
		key: 'name',
		title: 'POOL',
		rules: (v) => nameColumnRules(v.nameWidth),
		cell: (p) => ({ text: p.pool }),
		sortKey: (p) => p.pool,
	},
	image: {
		key: 'image',
		title: 'IMAGE',
		// IMAGE gives way first, before any column that says why a pool has no free member
		rules: () => ({ min: 12, want: 24, ample: 32, max: 48, priority: 3 }),
		needs: 'spec',
		cell: (p) => ({ text: p.spec?.image ?? '?' }),
		sortKey: (p) => (p.spec ? p.spec.image : null),
	},
	size: {
		key: 'size',
		title: 'SIZE/OBS',
		rules: () => ({ min: 8, max: 9, priority: 0, align: 'right' }),
		cell: sizeCell,
		sortKey: (p) => (p.spec ? p.spec.size : null),
	},
	ready: countColumn('ready', 'READY', 1, (c) => c.ready),
	claimed: countColumn('claimed', 'CLAIMED', 2, (c) => c.claimed),
	free: {
		key: 'free',
		title: 'FREE NOW',
		rules: () => ({ min: 8, max: 8, priority: 0, align: 'right' }),
		needs: 'counts',
		cell: ({ counts: c }) => ({
			text: String(c.claimableNow),
			tone: c.free === 0 && c.observed > 0 ? 'error' : c.claimableNow === 0 ? 'warn' : undefined,
		}),
		sortKey: (p) => p.counts.free,
	},
	soon: {
		key: 'soon',
		title: 'SOON',
		rules: () => ({ min: 4, max: 4, priority: 2, align: 'right' }),
		needs: 'counts',
		cell: ({ counts: c }) => ({
			text: String(c.claimableSoon),
			tone: c.claimableSoon > 0 ? undefined : 'muted',
		}),
		sortKey: (p) => p.counts.claimableSoon,
	},
	refused: {
		key: 'refused',
		title: 'REFUSED/1H',
		rules: () => ({ min: 10, max: 10, priority: 2, align: 'right' }),
		cell: (_p, { refused }) =>
			refused === undefined
				? { text: UNKNOWN, tone: 'muted' }
				: refused === null
					? { text: '?', tone: 'muted' }
					: { text: String(refused), tone: refused > 0 ? 'warn' : undefined },
		sortKey: (_p, refused) => refused,
	},
	unschedulable: countColumn('unschedulable', 'UNSCHED', 1, (c) => c.unschedulable, 'warn'),
	drifted: countColumn('drifted', 'DRIFTED', 1, (c) => c.drifted, 'warn'),
	failed: countColumn('failed', 'FAILED', 1, (c) => c.failed, 'error'),
	expired: countColumn('expired', 'EXPIRED', 1, (c) => c.expired, 'warn'),
	exhausted: {
		key: 'exhausted',
		title: 'EXHAUSTED',
		rules: () => ({ min: 9, max: 9, priority: 1 }),
		needs: 'counts',
		cell: ({ counts: c }) =>
			c.exhausted ? { text: 'EXHAUSTED', tone: 'error' } : { text: 'no', tone: 'muted' },
		// ascending: EXHAUSTED pools first
		sortKey: (p) => (p.counts.exhausted ? 0 : 1),
	},
	reconcile: {
		key: 'reconcile',
		title: 'LAST RECONCILE',
		rules: () => ({ min: 14, want: 24, ample: 60, max: Number.POSITIVE_INFINITY, priority: 4 }),
		needs: 'spec',
		cell: reconcileCell,
		sortKey: (p) => (p.specError ? `!${p.specError}` : (p.recorded?.observedAt ?? null)),
	},
};

/** The pools table's columns, in display order (NAMESPACE only across namespaces). */
export const POOL_COLUMNS: readonly PoolColumnRecord[] = Object.values(POOL_COLUMN_RECORDS);

/** The record of a pool column. */
export function poolColumn(key: PoolColumn): PoolColumnRecord {
	return POOL_COLUMN_RECORDS[key];
}

/** The pool columns that have something to show, in display order, sized for the names. */
export function poolColumns(values: PoolTableValues): RecordSpec<PoolColumnRecord>[] {
	return columnSpecs(POOL_COLUMNS, values);
}

/** SIZE/OBS: the definition's size and the members observed, UNKNOWN for a list not arrived. */
function sizeCell(p: PoolDerivation, { known }: PoolCellContext): Cell {
	const size = known.spec ? (p.spec ? p.spec.size : '?') : UNKNOWN;
	return { text: `${size}/${known.counts ? p.counts.observed : UNKNOWN}` };
}

/** LAST RECONCILE: a rollout under way leads it (an error keeps its tone). */
function reconcileCell(p: PoolDerivation, { now }: PoolCellContext): Cell {
	const last = lastReconcile(p, now);
	const rollout = poolRollout(p);
	return rollout ? { ...last, text: `${rolloutText(rollout)} · ${last.text}` } : last;
}

const UNKNOWN_CELL: Cell = { text: UNKNOWN, tone: 'muted' };

/**
 * What a pool shows in a column (not yet sanitised or fitted) through the column's record; a
 * figure whose list has not arrived yet shows UNKNOWN, never a zero.
 */
export function poolCell(
	record: PoolColumnRecord,
	p: PoolDerivation,
	context: PoolCellContext,
): Cell {
	const { needs } = record;
	if ((needs === 'spec' && !context.known.spec) || (needs === 'counts' && !context.known.counts))
		return UNKNOWN_CELL;
	return record.cell(p, context);
}

/** The title of a pool column. */
export function poolColumnTitle(column: PoolColumn): string {
	return poolColumn(column).title;
}
