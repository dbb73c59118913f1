/**
 * What the console shows of one pool, derived from the watched objects through the pool
 * model. Re-derivation is incremental: only the members whose objects changed are derived
 * again; a change of the definition derives the whole pool again.
 */

import {
	groupMembers,
	type MemberObjects,
	memberIndex,
	type PoolCounts,
	type PoolSpec,
	type PoolStatus,
	parseSpec,
	readStatus,
	SPEC_KEY,
	STATUS_KEY,
	sourceFields,
	sourceHash,
} from '../../pool/index.js';
import { type RolloutProgress, rolloutProgress } from '../../pool/rollout.js';
import type { ColumnValues } from './member-columns.js';
import { type MemberRow, memberRow } from './member-row.js';
import type { ObjectIndex } from './object-index.js';
import {
	copyTally,
	type RowTally,
	sameValues,
	tallyCounts,
	tallyRow,
	tallyRows,
	tallyValues,
} from './row-tally.js';

/** One pool as the console shows it. */
export interface PoolDerivation {
	pool: string;
	/** The definition ConfigMap exists. */
	defined: boolean;
	spec: PoolSpec | null;
	/** Why the definition is unreadable (null when it is fine or absent). */
	specError: string | null;
	sourceHash: string | null;
	/** The status the last reconcile recorded (null when none or unreadable). */
	recorded: PoolStatus | null;
	/** Why the recorded status is unreadable (`status: errors is not a list`), or null. */
	statusProblem?: string | null;
	/** Members in index order. */
	rows: readonly MemberRow[];
	counts: PoolCounts;
	/** What the rows hold, for the members table's columns (the same object while unchanged). */
	columnValues: ColumnValues;
	/** The counts and column values, kept incrementally (never changed once the derivation is made). */
	tally: RowTally;
	/** Where each member is in rows (shared by derivations with the same members). */
	positions: ReadonlyMap<string, number>;
	/**
	 * The members are not derived yet (rows empty, counts zero): the watch's first lists are
	 * still coming in, so the counts are not shown, and the pool is not open. Its members are
	 * derived once, when the last member list is in (or the pool is opened, or searched).
	 */
	membersPending?: true;
}

function positionsOf(rows: readonly MemberRow[]): Map<string, number> {
	const out = new Map<string, number>();
	for (const [i, r] of rows.entries()) out.set(r.name, i);
	return out;
}

function readDefinition(
	index: ObjectIndex,
	pool: string,
): Pick<
	PoolDerivation,
	'defined' | 'spec' | 'specError' | 'sourceHash' | 'recorded' | 'statusProblem'
> {
	const cm = index.configMap(pool);
	if (!cm) return { defined: false, spec: null, specError: null, sourceHash: null, recorded: null };
	const { status: recorded, problem: statusProblem } = readStatus(cm.data?.[STATUS_KEY]);
	try {
		const spec = parseSpec(cm.data?.[SPEC_KEY], pool, { allowPersistent: true });
		return {
			defined: true,
			spec,
			specError: null,
			sourceHash: sourceHash(sourceFields(spec)),
			recorded,
			statusProblem,
		};
	} catch (e) {
		return {
			defined: true,
			spec: null,
			specError: e instanceof Error ? e.message : String(e),
			sourceHash: null,
			recorded,
			statusProblem,
		};
	}
}

/**
 * The rollout under way, as the members show it now (the recorded status lags a reconcile
 * behind): null unless an unclaimed member within size runs an old source.
 */
export function poolRollout(p: PoolDerivation): RolloutProgress | null {
	// no drifted member at all (the incremental count): nothing to scan
	if (p.counts.drifted === 0) return null;
	return rolloutProgress(p.rows, p.sourceHash, p.spec?.image);
}

/** Derives a whole pool from the index. */
export function derivePool(index: ObjectIndex, pool: string, now: number): PoolDerivation {
	const def = readDefinition(index, pool);
	const objects = index.poolObjects(pool);
	const grouped = groupMembers(pool, def.spec?.size ?? 0, objects);
	const rows = grouped.map((m) => memberRow(m, def, now));
	const tally = tallyRows(rows);
	return {
		pool,
		...def,
		rows,
		counts: tallyCounts(tally, def.spec?.size ?? 0),
		columnValues: tallyValues(tally),
		tally,
		positions: positionsOf(rows),
	};
}

/**
 * A pool whose members wait for the watch's first lists (membersPending): its definition
 * only. Deriving every member from each list as it comes (PVCs, then pods, then Leases)
 * would derive each member three times before its counts can be shown.
 */
export function pendingPool(index: ObjectIndex, pool: string): PoolDerivation {
	const def = readDefinition(index, pool);
	const tally = tallyRows([]);
	return {
		pool,
		...def,
		rows: [],
		counts: tallyCounts(tally, def.spec?.size ?? 0),
		columnValues: tallyValues(tally),
		tally,
		positions: new Map(),
		membersPending: true,
	};
}

/** The grouped objects of one member, or null when it is no member now. */
function memberObjectsOf(
	index: ObjectIndex,
	pool: string,
	member: string,
	size: number,
): MemberObjects | null {
	const { pod, pvc, lease } = index.memberObjects(member);
	const grouped = groupMembers(pool, 0, {
		pods: pod ? [pod] : [],
		pvcs: pvc ? [pvc] : [],
		leases: lease ? [lease] : [],
	});
	const found = grouped.find((m) => m.name === member);
	if (found) return found;
	const n = memberIndex(pool, member);
	if (n !== null && n <= size) return { name: member, index: n, pod: null, pvc: null, lease: null };
	return null;
}

/**
 * Derives the named members again and returns the updated pool (the same object when
 * nothing it shows changed).
 */
export function rederiveMembers(
	index: ObjectIndex,
	prev: PoolDerivation,
	members: Iterable<string>,
	now: number,
): PoolDerivation {
	const size = prev.spec?.size ?? 0;
	const byName = new Map<string, MemberRow | null>();
	for (const name of members) {
		const objects = memberObjectsOf(index, prev.pool, name, size);
		byName.set(name, objects ? memberRow(objects, prev, now) : null);
	}
	if (byName.size === 0) return prev;
	const tally = copyTally(prev.tally);
	let rows: MemberRow[];
	let positions = prev.positions;
	let structural = false;
	for (const [name, next] of byName) {
		const at = prev.positions.get(name);
		if (at === undefined ? next !== null : next === null) structural = true;
	}
	if (!structural) {
		// the same members: replace the changed rows in a copy
		rows = prev.rows.slice();
		for (const [name, next] of byName) {
			const at = prev.positions.get(name);
			if (at === undefined || !next) continue;
			const old = rows[at];
			if (old) tallyRow(tally, old, -1);
			tallyRow(tally, next, 1);
			rows[at] = next;
		}
	} else {
		rows = [];
		for (const row of prev.rows) {
			if (!byName.has(row.name)) {
				rows.push(row);
				continue;
			}
			tallyRow(tally, row, -1);
			const next = byName.get(row.name);
			byName.delete(row.name);
			if (next) {
				rows.push(next);
				tallyRow(tally, next, 1);
			}
		}
		let added = false;
		for (const next of byName.values()) {
			if (!next) continue;
			rows.push(next);
			tallyRow(tally, next, 1);
			added = true;
		}
		if (added) rows.sort((a, b) => a.index - b.index);
		positions = positionsOf(rows);
	}
	return {
		...prev,
		rows,
		counts: tallyCounts(tally, size),
		columnValues: sameValues(prev.columnValues, tallyValues(tally)),
		tally,
		positions,
	};
}

/** The members whose claim expired between two clock ticks (their rows must change). */
export function newlyExpired(p: PoolDerivation, now: number): string[] {
	const out: string[] = [];
	for (const row of p.rows)
		if (row.holder && !row.claimExpired && row.leaseExpiresAt !== null && row.leaseExpiresAt <= now)
			out.push(row.name);
	return out;
}
