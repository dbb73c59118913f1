/**
 * Sorting the members and pools tables by any of their columns: a stable sort, ties broken by
 * the member's index (the pool's name), empty cells last in either direction.
 */

import { MEMBER_COLUMNS, type MemberColumn, memberColumn } from './member-columns.js';
import type { MemberRow } from './member-row.js';
import { POOL_COLUMNS, type PoolColumn, poolColumn } from './pool-columns.js';
import type { PoolDerivation } from './pool-derivation.js';

/** The sort of a table: a column and a direction. */
export interface SortOrder<K extends string> {
	column: K;
	/** Descending (`O` flips it). */
	reverse: boolean;
}

/** The member columns in the order `o` steps through them (display order). */
export const MEMBER_SORT_COLUMNS: readonly MemberColumn[] = MEMBER_COLUMNS.map((c) => c.key);

/**
 * The pool columns in the order `o` steps through them (display order; NAMESPACE, shown
 * only across namespaces, is not stepped to).
 */
export const POOL_SORT_COLUMNS: readonly PoolColumn[] = POOL_COLUMNS.filter(
	(c) => c.key !== 'namespace',
).map((c) => c.key);

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
export type SortKey = number | string | null;

function compareKeys(a: SortKey, b: SortKey, reverse: boolean): number {
	if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
	const c =
		typeof a === 'number' && typeof b === 'number'
			? a - b
			: String(a).localeCompare(String(b), 'en', { numeric: true, sensitivity: 'base' });
	return reverse ? -c : c;
}

/** The rows in the sort's order (stable; ties by index, then name). */
export function sortRows(
	rows: readonly MemberRow[],
	sort: SortOrder<MemberColumn>,
): readonly MemberRow[] {
	if (sort.column === 'name' && !sort.reverse) return rows;
	const key = memberColumn(sort.column).sortKey;
	const keyed = rows.map((r) => ({ r, k: key(r) }));
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
	const key = poolColumn(sort.column).sortKey;
	const keyed = names.map((n) => {
		const p = pools[n];
		return { n, k: p ? key(p, refused ? (refused.get(p.pool) ?? 0) : null) : null };
	});
	keyed.sort((a, b) => compareKeys(a.k, b.k, sort.reverse) || a.n.localeCompare(b.n));
	return keyed.map((x) => x.n);
}

/** How a sort is shown: `sort HOLDER ↓`. */
export function sortLabel(title: string, sort: SortOrder<string>): string {
	return `sort ${title} ${sort.reverse ? '↓' : '↑'}`;
}
