/**
 * Fitting a message to one line so that its cause stays: an error reads `what was asked:
 * why it failed` (`list pods in namespace x: cannot reach the cluster: connection refused
 * (10.0.0.1:6443)`), and a plain cut keeps the request and loses the reason. Too long, a
 * message first loses URLs and addresses, then the request text before its cause, and is
 * cut only after that.
 */

import { displayWidth, truncate } from './text-fit.js';

/** A URL, or an address in parentheses (`(10.0.0.1:6443)`). */
const NOISE = /\s*\((?:[a-z][a-z0-9+.-]*:\/\/)?[\w.-]+:\d+\)|\s*\bhttps?:\/\/\S*[^\s:;,)]/gi;

/** A label that names what follows (kept when the request text goes). */
const LABELS = new Set(['last error', 'error']);

/** A segment that is the request made (`list pods in namespace x`, `GET`), not what it meant. */
const REQUEST =
	/^(?:get|list|watch|create|update|patch|delete|deletecollection|GET|POST|PUT|PATCH|DELETE)\b/;

/** A segment that only leads to the cause after it (`cannot reach the cluster: connection refused`). */
const LEAD = /^(?:cannot reach the cluster|lost the connection to the cluster)$/;

/** The segments without those a test picks, unless none would be left. */
function without(segments: readonly string[], drop: (segment: string) => boolean): string[] {
	const kept = segments.filter((g) => !drop(g));
	return kept.length > 0 ? kept : [...segments];
}

/**
 * The message in at most width columns, its cause kept: URLs and addresses go first, then
 * the request text (`list pods in namespace x`, `GET`), then a lead the cause restates
 * (`cannot reach the cluster`); what failed (`console on desk-1 did not open`) and why stay,
 * and the line is cut only after that (the parts before the error first).
 */
export function fitMessage(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	const bare = text.replace(NOISE, '');
	if (displayWidth(bare) <= width) return bare;
	// ' · ' separates what a line says; the last part is the error
	const parts = bare.split(' · ');
	const error = parts.pop() ?? '';
	const head = parts.length > 0 ? `${parts.join(' · ')} · ` : '';
	let segments = error.split(': ');
	const label = segments.length > 1 && LABELS.has(segments[0] ?? '') ? `${segments.shift()}: ` : '';
	const line = () => `${head}${label}${segments.join(': ')}`;
	for (const drop of [(g: string) => REQUEST.test(g), (g: string) => LEAD.test(g)]) {
		if (displayWidth(line()) <= width) return line();
		segments = without(segments, drop);
	}
	if (displayWidth(line()) <= width) return line();
	// still too long: the head gives way before the error
	const cause = `${label}${segments.join(': ')}`;
	const room = width - displayWidth(cause);
	return room >= 4 ? `${truncate(head, room)}${cause}` : truncate(cause, width);
}
