/** The `/` filter of the members table: a case-insensitive match on name, state and holder. */

import { sanitize } from '../text/sanitize.js';
import type { MemberRow } from './member-row.js';

/** True when the row matches the filter text (an empty filter matches everything). */
export function matchesFilter(row: MemberRow, filter: string): boolean {
	const f = filter.trim().toLowerCase();
	if (!f) return true;
	return (
		row.name.toLowerCase().includes(f) ||
		row.state.toLowerCase().includes(f) ||
		sanitize(row.holder).toLowerCase().includes(f)
	);
}

/** The rows the filter lets through, in their order. */
export function filterRows(rows: readonly MemberRow[], filter: string): readonly MemberRow[] {
	return filter.trim() ? rows.filter((r) => matchesFilter(r, filter)) : rows;
}
