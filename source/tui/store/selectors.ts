/**
 * Values derived from the console state. Those that cost (the visible rows, the pools' order)
 * are memoised on their inputs: one answer per input object (a WeakMap on the pool's rows, on
 * the pools), so two stores never share or evict each other's answers, and an answer goes
 * with the objects it was derived from.
 */

import type { AuditEntry } from '../../pool/audit.js';
import { refusedByPool } from '../model/audit-filter.js';
import type { MemberColumn } from '../model/member-columns.js';
import { filterRows } from '../model/member-filter.js';
import type { MemberRow } from '../model/member-row.js';
import type { PoolColumn } from '../model/pool-columns.js';
import type { PoolDerivation } from '../model/pool-derivation.js';
import { type SortOrder, sortPoolNames, sortRows } from '../model/sorting.js';
import type { AuditView } from './navigation-state.js';
import type { ConsoleState } from './store.js';

/**
 * Which kinds have been listed, as the figures they make known: the definitions' (configmaps
 * listed) and the member counts (pods, PVCs and Leases listed).
 */
export interface ListedKinds {
	spec: boolean;
	counts: boolean;
}

/** Which kinds have been listed yet (while connecting, some are not), as the figures they make known. */
export function listedKinds(state: Pick<ConsoleState, 'listed'>): ListedKinds {
	const l = state.listed;
	return {
		spec: Boolean(l.configmaps),
		counts: Boolean(l.pods && l.persistentvolumeclaims && l.leases),
	};
}

/** The pool open on the members screen, derived. */
export function currentPool(state: ConsoleState): PoolDerivation | null {
	return state.pool ? (state.pools[state.pool] ?? null) : null;
}

const NO_ROWS: readonly MemberRow[] = [];

/** The last answer of filteredSorted for each rows array (a pool's rows are replaced, never changed). */
const visibleMemo = new WeakMap<
	readonly MemberRow[],
	{ filter: string; sort: SortOrder<MemberColumn>; out: readonly MemberRow[] }
>();

/** The rows the filter lets through, in the sort's order (the last answer for these rows is kept). */
export function filteredSorted(
	rows: readonly MemberRow[],
	filter: string,
	sort: SortOrder<MemberColumn>,
): readonly MemberRow[] {
	const l = visibleMemo.get(rows);
	if (l && l.filter === filter && l.sort === sort) return l.out;
	const out = sortRows(filterRows(rows, filter), sort);
	visibleMemo.set(rows, { filter, sort, out });
	return out;
}

/** The member rows of the open pool that the filter lets through, in the sort's order. */
export function visibleRows(state: ConsoleState): readonly MemberRow[] {
	const p = currentPool(state);
	return p ? filteredSorted(p.rows, state.filter, state.memberSort) : NO_ROWS;
}

/** The last answer of sortedPoolNames for each pools object (replaced on every change). */
const poolsMemo = new WeakMap<
	ConsoleState['pools'],
	{
		names: readonly string[];
		sort: SortOrder<PoolColumn>;
		refused: ReadonlyMap<string, number> | null | undefined;
		out: readonly string[];
	}
>();

/** The pool names in the pools table's sort order (the last answer for these pools is kept). */
export function sortedPoolNames(
	state: Pick<ConsoleState, 'poolNames' | 'pools' | 'poolSort' | 'audit' | 'now' | 'session'>,
): readonly string[] {
	const refused = state.poolSort.column === 'refused' ? refusedByPool(state) : undefined;
	const l = poolsMemo.get(state.pools);
	if (l && l.names === state.poolNames && l.sort === state.poolSort && l.refused === refused)
		return l.out;
	const out = sortPoolNames(state.poolNames, state.pools, state.poolSort, refused);
	poolsMemo.set(state.pools, { names: state.poolNames, sort: state.poolSort, refused, out });
	return out;
}

/**
 * Where the selection is among the visible rows: its member when still there, else the row
 * now at its old position (so the selection never jumps to the top when its member goes).
 */
export function selectedPosition(
	state: Pick<ConsoleState, 'selected' | 'selectedIndex'>,
	rows: readonly MemberRow[],
): number {
	if (rows.length === 0) return 0;
	if (state.selected) {
		const i = rows.findIndex((r) => r.name === state.selected);
		if (i >= 0) return i;
	}
	return Math.max(0, Math.min(rows.length - 1, state.selectedIndex));
}

/** The selected member row, or null. */
export function selectedRow(state: ConsoleState): MemberRow | null {
	const rows = visibleRows(state);
	return rows[selectedPosition(state, rows)] ?? null;
}

/** Where the audit selection is among the shown lines (its line, else its old position). */
export function selectedAuditPosition(
	view: Pick<AuditView, 'selected' | 'selectedIndex'>,
	lines: readonly AuditEntry[],
): number {
	if (lines.length === 0) return 0;
	if (view.selected) {
		const i = lines.findIndex((l) => l.name === view.selected);
		if (i >= 0) return i;
	}
	return Math.max(0, Math.min(lines.length - 1, view.selectedIndex));
}
