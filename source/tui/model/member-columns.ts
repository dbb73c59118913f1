/** The columns of the members table and what each shows of a member. */

import { shownHolder } from '../../pool/member-state.js';
import { isOldSourceNote } from '../../pool/rollout.js';
import { ageSince, formatAge } from '../../text/age.js';
import type { ColumnSpec } from '../render/table-layout.js';
import type { MemberRow } from './member-row.js';

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

/** How a cell is coloured: by the member's state, as a warning, as an error, or muted. */
export type CellTone = 'state' | 'warn' | 'error' | 'muted' | undefined;

/** A cell's text and tone. */
export interface Cell {
	text: string;
	tone?: CellTone;
}

/** What the rows hold, so that columns fit their content and empty ones are left out. */
export interface ColumnFacts {
	/** The widest member name. */
	nameWidth: number;
	/** The widest holder (display width). */
	holderWidth: number;
	anyClaim: boolean;
	anyDrift: boolean;
	anyMaintenance: boolean;
	anyAboveSize: boolean;
}

/** The facts of a set of rows. */
export function columnFacts(rows: readonly MemberRow[], width: (s: string) => number): ColumnFacts {
	const f: ColumnFacts = {
		nameWidth: 4,
		holderWidth: 6,
		anyClaim: false,
		anyDrift: false,
		anyMaintenance: false,
		anyAboveSize: false,
	};
	for (const r of rows) {
		if (r.name.length > f.nameWidth) f.nameWidth = r.name.length;
		const shown = shownHolder(r);
		if (shown) {
			f.anyClaim = true;
			const w = width(shown);
			if (w > f.holderWidth) f.holderWidth = w;
		}
		if (r.reconciling) f.anyClaim = true;
		if (r.drifted) f.anyDrift = true;
		if (r.maintenance) f.anyMaintenance = true;
		if (r.aboveSize) f.anyAboveSize = true;
	}
	return f;
}

/** The member columns that have something to show, in display order, sized for the content. */
export function memberColumns(f: ColumnFacts): ColumnSpec<MemberColumn>[] {
	const name = Math.max(4, Math.min(f.nameWidth, 40));
	const holder = Math.max(6, Math.min(f.holderWidth, 28));
	const all: Array<ColumnSpec<MemberColumn> | false> = [
		{ key: 'name', title: 'NAME', min: name, max: name, priority: 0 },
		{ key: 'state', title: 'STATE', min: 13, max: 13, priority: 0 },
		{
			key: 'holder',
			title: 'HOLDER',
			min: Math.min(holder, 10),
			want: Math.min(holder, 18),
			max: holder,
			priority: 1,
		},
		f.anyClaim && { key: 'claim', title: 'CLAIM', min: 12, max: 14, priority: 3 },
		f.anyDrift && {
			key: 'drift',
			title: 'DRIFT',
			min: 8,
			want: 18,
			ample: 26,
			max: 34,
			priority: 5,
		},
		f.anyMaintenance && { key: 'maint', title: 'MAINT', min: 5, max: 12, priority: 6 },
		f.anyAboveSize && { key: 'above', title: 'ABOVE', min: 5, max: 5, priority: 8 },
		{ key: 'node', title: 'NODE', min: 6, want: 8, max: 12, priority: 7 },
		{ key: 'age', title: 'AGE', min: 5, max: 6, priority: 4 },
		{
			key: 'message',
			title: 'MESSAGE',
			min: 12,
			want: 24,
			ample: 48,
			max: Number.POSITIVE_INFINITY,
			priority: 2,
		},
	];
	return all.filter((c): c is ColumnSpec<MemberColumn> => c !== false);
}

/** The claim cell: how long it has been held and how long is left, or that it expired. */
export function claimCell(row: MemberRow, now: number): Cell {
	if (!row.holder) return { text: row.reconciling ? 'reconciling' : '', tone: 'muted' };
	const held = row.claimedAt === null ? '?' : formatAge(now - row.claimedAt);
	if (row.claimExpired) return { text: `${held} EXPIRED`, tone: 'error' };
	const left = row.leaseExpiresAt === null ? '?' : formatAge(Math.max(0, row.leaseExpiresAt - now));
	return { text: `${held} ${left} left` };
}

/** What a member shows in a column (not yet sanitised or fitted). */
export function memberCell(column: MemberColumn, row: MemberRow, now: number): Cell {
	switch (column) {
		case 'name':
			return { text: row.name };
		case 'state':
			return { text: row.state, tone: 'state' };
		case 'holder':
			if (row.holder) return { text: row.holder, tone: row.claimExpired ? 'error' : undefined };
			// an older Corral broker's claim: shown as Corral's
			if (row.corralHolder) return { text: shownHolder(row), tone: 'warn' };
			return { text: row.reconciling ? '(reconciler)' : '-', tone: 'muted' };
		case 'claim':
			return claimCell(row, now);
		case 'drift':
			return row.drifted
				? { text: row.drift.map(compactDrift).join('; ') || 'drifted', tone: 'warn' }
				: { text: '' };
		case 'maint':
			return row.maintenance
				? { text: row.maintenanceReason || 'yes', tone: 'warn' }
				: { text: '' };
		case 'above':
			return row.aboveSize ? { text: 'yes', tone: 'warn' } : { text: '' };
		case 'node':
			return { text: row.node };
		case 'age':
			return { text: ageSince(row.createdAt, now) };
		case 'message':
			return { text: row.message, tone: row.state === 'Failed' ? 'error' : undefined };
	}
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
	const all = memberColumns({
		nameWidth: 4,
		holderWidth: 6,
		anyClaim: true,
		anyDrift: true,
		anyMaintenance: true,
		anyAboveSize: true,
	});
	return all.find((c) => c.key === column)?.title ?? column.toUpperCase();
}
