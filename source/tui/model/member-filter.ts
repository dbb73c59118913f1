/**
 * The `/` filter of the members table: a case-insensitive regular expression (a substring when
 * the text is not a valid one) on name, state, holder, node and message; a leading `!` keeps
 * the rows that do not match. The expression runs on RE2's engine (re2js): linear time in the
 * text whatever the pattern, so `(a+)+b` against a long holder cannot stall the console; the
 * constructs that need backtracking (backreferences, lookarounds) are refused, and the text
 * is then matched as a substring, which the summary says.
 */

import { RE2JS } from 're2js';
import { sanitize } from '../../text/sanitize.js';
import type { MemberRow } from './member-row.js';

/** A filter text, parsed. */
export interface MemberFilter {
	/** The text as typed, trimmed. */
	text: string;
	/** `!`: keep the rows that do not match. */
	inverse: boolean;
	/** The expression, or null when the text is not a valid one (then a substring match). */
	regex: RE2JS | null;
	/** The lower-cased pattern, for the substring fallback. */
	substring: string;
	/** Why the text is not a valid regular expression, else null. */
	invalid: string | null;
	/**
	 * A valid JavaScript expression that needs backtracking (a backreference, a lookaround),
	 * which could take exponential time: refused, matched as text.
	 */
	costly: boolean;
}

/**
 * The filters parsed, by their text: a parse is a pure, frozen value of its text, so any
 * store may be answered from it; each text keeps its own entry (two consoles filtering on
 * two texts never evict each other), the oldest going past PARSED_MAX (a filter is typed a
 * character at a time).
 */
const parsed = new Map<string, MemberFilter>();
const PARSED_MAX = 64;

/** Parses a filter text; null when it filters nothing (empty, or a lone `!`). */
export function parseFilter(filter: string): MemberFilter | null {
	const text = filter.trim();
	const known = parsed.get(text);
	if (known) return known;
	const inverse = text.startsWith('!');
	const pattern = (inverse ? text.slice(1) : text).trim();
	if (!pattern) return null;
	let regex: RE2JS | null = null;
	let invalid: string | null = null;
	let costly = false;
	try {
		regex = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
	} catch (err) {
		invalid = err instanceof Error ? err.message : String(err);
		try {
			new RegExp(pattern, 'i'); // compiled only, never run
			costly = true;
		} catch {
			// not an expression at all
		}
	}
	const f = Object.freeze({
		text,
		inverse,
		regex,
		substring: pattern.toLowerCase(),
		invalid,
		costly,
	});
	if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value as string);
	parsed.set(text, f);
	return f;
}

function fieldMatches(f: MemberFilter, value: string): boolean {
	if (!value) return false;
	return f.regex ? f.regex.test(value) : value.toLowerCase().includes(f.substring);
}

/** True when the row passes the filter text (an empty filter passes everything). */
export function matchesFilter(row: MemberRow, filter: string | MemberFilter | null): boolean {
	const f = typeof filter === 'string' ? parseFilter(filter) : filter;
	if (!f) return true;
	const hit =
		fieldMatches(f, row.name) ||
		fieldMatches(f, row.state) ||
		fieldMatches(f, sanitize(row.holder)) ||
		fieldMatches(f, sanitize(row.node)) ||
		fieldMatches(f, sanitize(row.message));
	return hit !== f.inverse;
}

/** The rows the filter lets through, in their order. */
export function filterRows(rows: readonly MemberRow[], filter: string): readonly MemberRow[] {
	const f = parseFilter(filter);
	return f ? rows.filter((r) => matchesFilter(r, f)) : rows;
}

/** The line that shows an active filter: `filter desk-[12]: 2 of 150`, and a fallback said. */
export function filterSummary(filter: string, shown: number, total: number): string | null {
	const f = parseFilter(filter);
	if (!f) return null;
	const fallback = f.costly
		? ' (pattern too costly: backreferences and lookarounds are not run; matched as text)'
		: f.invalid
			? ' (not a valid regular expression: matched as text)'
			: '';
	return `filter ${f.text}: ${shown} of ${total}${fallback} · Esc clears`;
}
