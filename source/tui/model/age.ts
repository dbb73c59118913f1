/** Durations and times as the console prints them. */

import { formatAge } from '../../text/age.js';

/** The age of something created at `since` (ms), or '' when unknown. */
export function ageSince(since: number | null | undefined, now: number): string {
	return since === null || since === undefined ? '' : formatAge(now - since);
}

/** A wall-clock time of day, HH:MM:SS in local time. */
export function clockTime(ms: number): string {
	const d = new Date(ms);
	const two = (n: number) => String(n).padStart(2, '0');
	return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** An elapsed time for the status line: 0.4s, 12s, 2m05s. */
export function formatElapsed(ms: number): string {
	if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
	const s = Math.floor(ms / 1000);
	if (s < 60) return `${s}s`;
	return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
