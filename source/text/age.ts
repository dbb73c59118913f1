/** Durations and times as the CLI and the console print them: ages as kubectl prints them, clock times, elapsed times. */

/**
 * A duration (ms) the way kubectl prints ages (k8s.io/apimachinery duration.HumanDuration):
 * seconds up to 2 minutes (`119s`), then `3m20s`, `15m` (from 10 minutes), `5h10m`, `20h`
 * (from 8 hours), `3d4h`, `12d` (from 8 days), `2y70d`, `9y`. Up to 2 s in the future counts
 * as `0s` (clock skew); further is `<invalid>`.
 */
export function formatAge(ms: number): string {
	const seconds = Math.trunc(ms / 1000); // Go's int(d.Seconds()): toward zero
	if (seconds < -1) return '<invalid>';
	if (seconds < 0) return '0s';
	if (seconds < 120) return `${seconds}s`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 10) {
		const s = seconds % 60;
		return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
	}
	if (minutes < 180) return `${minutes}m`;
	const hours = Math.floor(minutes / 60);
	if (hours < 8) {
		const m = minutes % 60;
		return m === 0 ? `${hours}h` : `${hours}h${m}m`;
	}
	if (hours < 48) return `${hours}h`;
	const days = Math.floor(hours / 24);
	if (days < 8) {
		const h = hours % 24;
		return h === 0 ? `${days}d` : `${days}d${h}h`;
	}
	if (days < 365 * 2) return `${days}d`;
	const years = Math.floor(days / 365);
	if (years < 8) {
		const d = days % 365;
		return d === 0 ? `${years}y` : `${years}y${d}d`;
	}
	return `${years}y`;
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

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration written as 30s, 1m30s, 500ms or 2h, in ms; null when it is not one. */
export function durationMs(value: string): number | null {
	const re = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/gy;
	let total = 0;
	let matched = 0;
	for (let m = re.exec(value); m; m = re.exec(value)) {
		total += Number(m[1]) * UNIT_MS[m[2]!]!;
		matched = re.lastIndex;
	}
	if (value === '' || matched !== value.length || !Number.isFinite(total)) return null;
	return total;
}
