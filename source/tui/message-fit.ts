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

/** The message in at most width columns, its cause kept. */
export function fitMessage(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	const bare = text.replace(NOISE, '');
	if (displayWidth(bare) <= width) return bare;
	// ' · ' separates what a line says; the last part is the error
	const parts = bare.split(' · ');
	const error = parts.pop() ?? '';
	const head = parts.length > 0 ? `${parts.join(' · ')} · ` : '';
	const segments = error.split(': ');
	const label = segments.length > 1 && LABELS.has(segments[0] ?? '') ? `${segments.shift()}: ` : '';
	let out = `${head}${label}${segments.join(': ')}`;
	while (displayWidth(out) > width && segments.length > 1) {
		segments.shift();
		out = `${head}${label}${segments.join(': ')}`;
	}
	if (displayWidth(out) <= width) return out;
	// still too long: the head gives way before the cause
	const cause = `${label}${segments.join(': ')}`;
	const room = width - displayWidth(cause);
	return room >= 4 ? `${truncate(head, room)}${cause}` : truncate(cause, width);
}
