/**
 * Sorting the members and pools tables by any of their columns: a stable sort, ties broken by
 * the member's index (the pool's name), empty cells last in either direction.
 */

import type { MemberColumn } from './member-columns.js';
import type { MemberRow } from './member-row.js';
import type { PoolColumn } from './pool-columns.js';
import type { PoolDerivation } from './pool-derivation.js';
import { poolNamespace } from './pool-index.js';

/** The sort of a table: a column and a direction. */
export interface SortOrder<K extends string> {
	column: K;
	/** Descending (`O` flips it). */
	reverse: boolean;
}

/** The member columns in the order `o` steps through them. */
export const MEMBER_SORT_COLUMNS: readonly MemberColumn[] = [
	'name',
	'state',
	'holder',
	'claim',
	'drift',
	'maint',
	'above',
	'node',
	'age',
	'message',
];

/** The pool columns in the order `o` steps through them. */
export const POOL_SORT_COLUMNS: readonly PoolColumn[] = [
	'name',
	'image',
	'size',
	'ready',
	'claimed',
	'free',
	'soon',
	'refused',
	'unschedulable',
	'drifted',
	'failed',
	'expired',
	'exhausted',
	'reconcile',
];

/** The sort a table starts with: by name (index order for members), ascending. */
export const DEFAULT_MEMBER_SORT: SortOrder<MemberColumn> = { column: 'name', reverse: false };

/** The sort the pools table starts with. */
export const DEFAULT_POOL_SORT: SortOrder<PoolColumn> = { column: 'name', reverse: false };

/** The column after `column` in `order` (wrapping round). */
export function nextSortColumn<K extends string>(order: readonly K[], column: K): K {
	const i = order.indexOf(column);
	return order[(i + 1) % order.length] ?? column;
}

/** A sort key: a number or a string; null (an empty cell) sorts last in either direction. */
type SortKey = number | string | null;

function compareKeys(a: SortKey, b: SortKey, reverse: boolean): number {
	if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
	const c =
		typeof a === 'number' && typeof b === 'number'
			? a - b
			: String(a).localeCompare(String(b), 'en', { numeric: true, sensitivity: 'base' });
	return reverse ? -c : c;
}

const text = (s: string): SortKey => (s ? s : null);

/** The value a member is sorted by in a column (what the column shows, as a comparable key). */
export function memberSortKey(column: MemberColumn, row: MemberRow): SortKey {
	switch (column) {
		case 'name':
			return row.index;
		case 'state':
			return row.state;
		case 'holder':
			return text(row.holder);
		case 'claim':
			// ascending: the claim held the shortest time first
			return row.holder && row.claimedAt !== null ? -row.claimedAt : null;
		case 'drift':
			return row.drifted ? row.drift.join('; ') || 'drifted' : null;
		case 'maint':
			return row.maintenance ? row.maintenanceReason || 'yes' : null;
		case 'above':
			return row.aboveSize ? 0 : null;
		case 'node':
			return text(row.node);
		case 'age':
			// ascending: the youngest first, as the AGE column reads
			return row.createdAt === null ? null : -row.createdAt;
		case 'message':
			return text(row.message);
	}
}

/** The value a pool is sorted by in a column (`refused`: the refused claims by pool, when known). */
export function poolSortKey(
	column: PoolColumn,
	p: PoolDerivation,
	refused?: ReadonlyMap<string, number> | null,
): SortKey {
	const c = p.counts;
	switch (column) {
		case 'namespace':
			return poolNamespace(p.pool, '') || null;
		case 'name':
			return p.pool;
		case 'image':
			return p.spec ? p.spec.image : null;
		case 'size':
			return p.spec ? p.spec.size : null;
		case 'ready':
			return c.ready;
		case 'claimed':
			return c.claimed;
		case 'free':
			return c.free;
		case 'soon':
			return c.claimableSoon;
		case 'refused':
			return refused ? (refused.get(p.pool) ?? 0) : null;
		case 'unschedulable':
			return c.unschedulable;
		case 'drifted':
			return c.drifted;
		case 'failed':
			return c.failed;
		case 'expired':
			return c.expired;
		case 'exhausted':
			// ascending: EXHAUSTED pools first
			return c.exhausted ? 0 : 1;
		case 'reconcile':
			return p.specError ? `!${p.specError}` : (p.recorded?.observedAt ?? null);
	}
}

/** The rows in the sort's order (stable; ties by index, then name). */
export function sortRows(
	rows: readonly MemberRow[],
	sort: SortOrder<MemberColumn>,
): readonly MemberRow[] {
	if (sort.column === 'name' && !sort.reverse) return rows;
	const keyed = rows.map((r) => ({ r, k: memberSortKey(sort.column, r) }));
	keyed.sort(
		(a, b) =>
			compareKeys(a.k, b.k, sort.reverse) ||
			a.r.index - b.r.index ||
			a.r.name.localeCompare(b.r.name),
	);
	return keyed.map((x) => x.r);
}

/** The pool names in the sort's order (stable; ties by name). */
export function sortPoolNames(
	names: readonly string[],
	pools: Readonly<Record<string, PoolDerivation>>,
	sort: SortOrder<PoolColumn>,
	refused?: ReadonlyMap<string, number> | null,
): readonly string[] {
	if (sort.column === 'name' && !sort.reverse) return names;
	const keyed = names.map((n) => {
		const p = pools[n];
		return { n, k: p ? poolSortKey(sort.column, p, refused) : null };
	});
	keyed.sort((a, b) => compareKeys(a.k, b.k, sort.reverse) || a.n.localeCompare(b.n));
	return keyed.map((x) => x.n);
}

/** How a sort is shown: `sort HOLDER ↓`. */
export function sortLabel(title: string, sort: SortOrder<string>): string {
	return `sort ${title} ${sort.reverse ? '↓' : '↑'}`;
}
