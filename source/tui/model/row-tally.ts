/**
 * The counts and column values of a pool's member rows, kept incrementally: a changed member
 * takes its old row out and puts its new row in, so a batch costs its own members, not the
 * whole pool.
 */

import type { PoolCounts } from '../../pool/index.js';
import { type ColumnValues, rowValues } from './member-columns.js';
import type { MemberRow } from './member-row.js';

/** A tally of rows: what countMembers and columnValues would compute over them. */
export interface RowTally {
	observed: number;
	ready: number;
	claimed: number;
	free: number;
	/** Free and Ready rows. */
	freeReady: number;
	unschedulable: number;
	failed: number;
	expired: number;
	drifted: number;
	/** Rows with a holder or a reconciler at work (the CLAIM column). */
	claimColumn: number;
	maintenance: number;
	aboveSize: number;
	/** How many rows have each name length. */
	nameWidths: Map<number, number>;
	/** How many rows showing a holder have each holder display width. */
	holderWidths: Map<number, number>;
}

/** An empty tally. */
export function emptyTally(): RowTally {
	return {
		observed: 0,
		ready: 0,
		claimed: 0,
		free: 0,
		freeReady: 0,
		unschedulable: 0,
		failed: 0,
		expired: 0,
		drifted: 0,
		claimColumn: 0,
		maintenance: 0,
		aboveSize: 0,
		nameWidths: new Map(),
		holderWidths: new Map(),
	};
}

/** A copy that can be changed without touching the original. */
export function copyTally(t: RowTally): RowTally {
	return { ...t, nameWidths: new Map(t.nameWidths), holderWidths: new Map(t.holderWidths) };
}

function bump(m: Map<number, number>, key: number, by: 1 | -1): void {
	const n = (m.get(key) ?? 0) + by;
	if (n > 0) m.set(key, n);
	else m.delete(key);
}

/** Adds (by 1) or takes out (by -1) one row, in place. */
export function tallyRow(t: RowTally, row: MemberRow, by: 1 | -1): void {
	const v = rowValues(row);
	if (row.state !== 'Missing') t.observed += by;
	if (row.state === 'Ready') t.ready += by;
	if (row.state === 'Unschedulable') t.unschedulable += by;
	if (row.state === 'Failed') t.failed += by;
	if (row.claimExpired) t.expired += by;
	if (row.holder) t.claimed += by;
	if (row.free) t.free += by;
	if (row.free && row.state === 'Ready') t.freeReady += by;
	if (v.drift) t.drifted += by;
	if (v.claim) t.claimColumn += by;
	if (v.maintenance) t.maintenance += by;
	if (v.aboveSize) t.aboveSize += by;
	bump(t.nameWidths, v.nameWidth, by);
	if (v.holderWidth > 0) bump(t.holderWidths, v.holderWidth, by);
}

/** The tally of a set of rows. */
export function tallyRows(rows: readonly MemberRow[]): RowTally {
	const t = emptyTally();
	for (const row of rows) tallyRow(t, row, 1);
	return t;
}

/** The pool counts of a tally (as countMembers gives them). */
export function tallyCounts(t: RowTally, size: number): PoolCounts {
	return {
		desired: size,
		observed: t.observed,
		ready: t.ready,
		claimed: t.claimed,
		free: t.free,
		unschedulable: t.unschedulable,
		failed: t.failed,
		expired: t.expired,
		drifted: t.drifted,
		exhausted: t.observed > 0 && t.free === 0,
		claimableNow: t.freeReady,
		claimableSoon: t.free - t.freeReady,
	};
}

function widest(m: Map<number, number>, floor: number): number {
	let w = floor;
	for (const k of m.keys()) if (k > w) w = k;
	return w;
}

/** The column values of a tally (as columnValues gives them). */
export function tallyValues(t: RowTally): ColumnValues {
	return {
		nameWidth: widest(t.nameWidths, 4),
		holderWidth: widest(t.holderWidths, 6),
		anyClaim: t.claimColumn > 0,
		anyDrift: t.drifted > 0,
		anyMaintenance: t.maintenance > 0,
		anyAboveSize: t.aboveSize > 0,
	};
}

/** The same values, or the previous object when nothing in them changed (a stable memo key). */
export function sameValues(prev: ColumnValues, next: ColumnValues): ColumnValues {
	return prev.nameWidth === next.nameWidth &&
		prev.holderWidth === next.holderWidth &&
		prev.anyClaim === next.anyClaim &&
		prev.anyDrift === next.anyDrift &&
		prev.anyMaintenance === next.anyMaintenance &&
		prev.anyAboveSize === next.anyAboveSize
		? prev
		: next;
}
