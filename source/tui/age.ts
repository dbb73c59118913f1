/** Durations and times as the console prints them. */

/** A duration the way kubectl prints ages: 45s, 3m20s, 15m, 5h10m, 3d4h, 120d. */
export function formatAge(ms: number): string {
	const s = Math.max(0, Math.floor(ms / 1000));
	if (s < 60) return `${s}s`;
	const m = Math.floor(s / 60);
	if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
	if (m < 60) return `${m}m`;
	const h = Math.floor(m / 60);
	if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
	const d = Math.floor(h / 24);
	if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
	return `${d}d`;
}

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
