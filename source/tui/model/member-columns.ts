/**
 * The columns of the members table as records (header, width rules, cell, sort key), and the
 * values of a row they need, computed once per row.
 */

import { shownHolder } from '../../pool/member-state.js';
import { isOldSourceNote } from '../../pool/rollout.js';
import { ageSince, formatAge } from '../../text/age.js';
import {
	type Cell,
	type CellTone,
	type ColumnRecord,
	columnSpecs,
	nameColumnRules,
	type RecordSpec,
} from '../render/table-layout.js';
import { clean, displayWidth } from '../render/text-fit.js';
import type { MemberRow } from './member-row.js';
import type { SortKey } from './sorting.js';

/** The member columns. */
export type MemberColumn =
	| 'name'
	| 'state'
	| 'holder'
	| 'claim'
	| 'drift'
	| 'maint'
	| 'above'
	| 'node'
	| 'age'
	| 'message';

/** What one row holds that the columns fit to or show only when some row has it. */
export interface RowValues {
	/** The name's length. */
	nameWidth: number;
	/** The display width of the holder the row shows (0: none). */
	holderWidth: number;
	/** A holder or a reconciler at work: the CLAIM column has something to say. */
	claim: boolean;
	drift: boolean;
	maintenance: boolean;
	aboveSize: boolean;
}

/**
 * The values of a row, computed once per row object (a changed member is a new row): the
 * tally of a pool and the values of a set of rows both read them from here.
 */
const valuesByRow = new WeakMap<MemberRow, RowValues>();
export function rowValues(row: MemberRow): RowValues {
	let v = valuesByRow.get(row);
	if (!v) {
		const holder = shownHolder(row);
		v = {
			nameWidth: row.name.length,
			holderWidth: holder ? displayWidth(clean(holder)) : 0,
			claim: Boolean(row.holder) || row.reconciling,
			drift: row.drifted,
			maintenance: row.maintenance,
			aboveSize: row.aboveSize,
		};
		valuesByRow.set(row, v);
	}
	return v;
}

/** What the rows hold, so that columns fit their content and empty ones are left out. */
export interface ColumnValues {
	/** The widest member name. */
	nameWidth: number;
	/** The widest holder (display width). */
	holderWidth: number;
	anyClaim: boolean;
	anyDrift: boolean;
	anyMaintenance: boolean;
	anyAboveSize: boolean;
}

/** The column values of a set of rows (the pool's tally keeps the same incrementally). */
export function columnValues(rows: readonly MemberRow[]): ColumnValues {
	const out: ColumnValues = {
		nameWidth: 4,
		holderWidth: 6,
		anyClaim: false,
		anyDrift: false,
		anyMaintenance: false,
		anyAboveSize: false,
	};
	for (const r of rows) {
		const v = rowValues(r);
		if (v.nameWidth > out.nameWidth) out.nameWidth = v.nameWidth;
		if (v.holderWidth > out.holderWidth) out.holderWidth = v.holderWidth;
		if (v.claim) out.anyClaim = true;
		if (v.drift) out.anyDrift = true;
		if (v.maintenance) out.anyMaintenance = true;
		if (v.aboveSize) out.anyAboveSize = true;
	}
	return out;
}

/** What a member cell needs besides its row. */
export interface MemberCellContext {
	now: number;
	/** The columns left out for want of width (the message carries what they would show). */
	hidden: ReadonlySet<MemberColumn>;
}

/** A members table column: header, width rules, cell and sort key. */
export interface MemberColumnRecord extends ColumnRecord<MemberColumn, ColumnValues> {
	/** What a member shows in the column (not yet sanitised or fitted). */
	cell: (row: MemberRow, context: MemberCellContext) => Cell;
	/** The value a member is sorted by in the column (what it shows, as a comparable key). */
	sortKey: (row: MemberRow) => SortKey;
}

const orEmpty = (s: string): SortKey => (s ? s : null);
const blank: Cell = { text: '' };

/** The record of each member column, in display order (the type makes sure every column has one). */
const MEMBER_COLUMN_RECORDS: { [K in MemberColumn]: MemberColumnRecord & { key: K } } = {
	name: {
		key: 'name',
		title: 'NAME',
		rules: (v) => nameColumnRules(v.nameWidth),
		cell: (row) => ({ text: row.name }),
		sortKey: (row) => row.index,
	},
	state: {
		key: 'state',
		title: 'STATE',
		rules: () => ({ min: 13, max: 13, priority: 0 }),
		cell: (row) => ({ text: row.state, tone: 'state' }),
		sortKey: (row) => row.state,
	},
	holder: {
		key: 'holder',
		title: 'HOLDER',
		rules: (v) => {
			const holder = Math.max(6, Math.min(v.holderWidth, 28));
			return { min: Math.min(holder, 10), want: Math.min(holder, 18), max: holder, priority: 1 };
		},
		cell: holderCell,
		sortKey: (row) => orEmpty(row.holder),
	},
	claim: {
		key: 'claim',
		title: 'CLAIM',
		rules: (v) => v.anyClaim && { min: 12, max: 14, priority: 3 },
		cell: (row, { now }) => claimCell(row, now),
		// ascending: the claim held the shortest time first
		sortKey: (row) => (row.holder && row.claimedAt !== null ? -row.claimedAt : null),
	},
	drift: {
		key: 'drift',
		title: 'DRIFT',
		rules: (v) => v.anyDrift && { min: 8, want: 18, ample: 26, max: 34, priority: 5 },
		cell: (row) =>
			row.drifted
				? { text: row.drift.map(compactDrift).join('; ') || 'drifted', tone: 'warn' }
				: blank,
		sortKey: (row) => (row.drifted ? row.drift.join('; ') || 'drifted' : null),
	},
	maint: {
		key: 'maint',
		title: 'MAINT',
		rules: (v) => v.anyMaintenance && { min: 5, max: 12, priority: 6 },
		cell: (row) =>
			row.maintenance ? { text: row.maintenanceReason || 'yes', tone: 'warn' } : blank,
		sortKey: (row) => (row.maintenance ? row.maintenanceReason || 'yes' : null),
	},
	above: {
		key: 'above',
		title: 'ABOVE',
		rules: (v) => v.anyAboveSize && { min: 5, max: 5, priority: 8 },
		cell: (row) => (row.aboveSize ? { text: 'yes', tone: 'warn' } : blank),
		sortKey: (row) => (row.aboveSize ? 0 : null),
	},
	node: {
		key: 'node',
		title: 'NODE',
		rules: () => ({ min: 6, want: 8, max: 12, priority: 7 }),
		cell: (row) => ({ text: row.node }),
		sortKey: (row) => orEmpty(row.node),
	},
	age: {
		key: 'age',
		title: 'AGE',
		rules: () => ({ min: 5, max: 6, priority: 4 }),
		cell: (row, { now }) => ({ text: ageSince(row.createdAt, now) }),
		// ascending: the youngest first, as the AGE column reads
		sortKey: (row) => (row.createdAt === null ? null : -row.createdAt),
	},
	message: {
		key: 'message',
		title: 'MESSAGE',
		rules: () => ({ min: 12, want: 24, ample: 48, max: Number.POSITIVE_INFINITY, priority: 2 }),
		cell: (row, { hidden }) => messageCell(row, hidden),
		sortKey: (row) => orEmpty(row.message),
	},
};

/** The members table's columns, in display order. */
export const MEMBER_COLUMNS: readonly MemberColumnRecord[] = Object.values(MEMBER_COLUMN_RECORDS);

/** The record of a member column. */
export function memberColumn(key: MemberColumn): MemberColumnRecord {
	return MEMBER_COLUMN_RECORDS[key];
}

/** The member columns that have something to show, in display order, sized for the content. */
export function memberColumns(values: ColumnValues): RecordSpec<MemberColumnRecord>[] {
	return columnSpecs(MEMBER_COLUMNS, values);
}

const NOTHING_HIDDEN: ReadonlySet<MemberColumn> = new Set();

/** What a member shows in a column, every column shown (not yet sanitised or fitted). */
export function memberCell(column: MemberColumn, row: MemberRow, now: number): Cell {
	return memberColumn(column).cell(row, { now, hidden: NOTHING_HIDDEN });
}

/** The holder cell: the holder, an older Corral broker's (as Corral's), or the reconciler. */
function holderCell(row: MemberRow): Cell {
	if (row.holder) return { text: row.holder, tone: row.claimExpired ? 'error' : undefined };
	// an older Corral broker's claim: shown as Corral's
	if (row.corralHolder) return { text: shownHolder(row), tone: 'warn' };
	return { text: row.reconciling ? '(reconciler)' : '-', tone: 'muted' };
}

/** The claim cell: how long it has been held and how long is left, or that it expired. */
export function claimCell(row: MemberRow, now: number): Cell {
	if (!row.holder) return { text: row.reconciling ? 'reconciling' : '', tone: 'muted' };
	const held = row.claimedAt === null ? '?' : formatAge(now - row.claimedAt);
	if (row.claimExpired) return { text: `${held} EXPIRED`, tone: 'error' };
	const left = row.leaseExpiresAt === null ? '?' : formatAge(Math.max(0, row.leaseExpiresAt - now));
	return { text: `${held} ${left} left` };
}

/**
 * An image drift shown short: the common registry and path left out, and the repository too
 * when only the tag changed (`image desktop:1 -> :2`).
 */
export function compactDrift(line: string): string {
	const m = /^image (\S+) -> (\S+)$/.exec(line);
	if (!m) return line;
	const a = m[1] ?? '';
	const b = m[2] ?? '';
	const slash = a.lastIndexOf('/');
	const prefix = slash > 0 && a.slice(0, slash) === b.slice(0, slash) ? slash + 1 : 0;
	const shortA = a.slice(prefix);
	const shortB = b.slice(prefix);
	const colon = shortA.lastIndexOf(':');
	if (colon > 0 && shortA.slice(0, colon) === shortB.slice(0, colon))
		return `image ${shortA} -> ${shortB.slice(colon)}`;
	return `image ${shortA} -> ${shortB}`;
}

/**
 * The message cell, carrying what hidden columns would have shown (drift, maintenance,
 * above size), so narrow terminals lose no fact.
 */
export function messageCell(row: MemberRow, hidden: ReadonlySet<MemberColumn>): Cell {
	const notes: string[] = [];
	if (hidden.has('drift') && row.drifted)
		notes.push(`drift: ${row.drift.map(compactDrift).join('; ') || 'yes'}`);
	if (hidden.has('maint') && row.maintenance)
		notes.push(row.maintenanceReason ? `maint: ${row.maintenanceReason}` : 'maint');
	if (hidden.has('above') && row.aboveSize) notes.push('above size');
	if (hidden.has('claim') && row.claimExpired) notes.push('claim EXPIRED');
	// the drift carried here says the member is on an old source: the row keeps it whole
	const message = hidden.has('drift') && isOldSourceNote(row.message) ? '' : row.message;
	const text = [...notes, message].filter(Boolean).join(' · ');
	const tone: CellTone =
		row.state === 'Failed' || row.claimExpired ? 'error' : notes.length > 0 ? 'warn' : undefined;
	return { text, tone };
}

/** The title of a member column (every column, shown or not). */
export function columnTitle(column: MemberColumn): string {
	return memberColumn(column).title;
}
