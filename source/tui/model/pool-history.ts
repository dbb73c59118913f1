/**
 * What the console has seen of each pool while it watched: a bounded ring of samples of
 * claimed and claimable members (for the members screen's sparkline) and since when the pool
 * has been exhausted (for its banner and the --bell).
 */

import type { AuditEntry } from '../../pool/audit.js';
import { formatAge } from '../../text/age.js';
import type { PoolDerivation } from './pool-derivation.js';

/** One sample of a pool. */
export interface PoolSample {
	time: number;
	claimed: number;
	/** Members free to claim. */
	claimable: number;
	/** The desired size then (the sparkline's full scale). */
	desired: number;
}

/** The history of one pool. */
export interface PoolHistory {
	/** Oldest first, at most HISTORY_SAMPLES, about SAMPLE_MS apart. */
	samples: readonly PoolSample[];
	/** When the console saw the pool become exhausted (null while it is not). */
	exhaustedSince: number | null;
	/** It was exhausted when the console first saw it: since is the first sight, not the start. */
	exhaustedAtStart: boolean;
	/** How many times it became exhausted while watched (each one rings the --bell). */
	exhaustions: number;
}

/** The time between two samples (ms). */
export const SAMPLE_MS = 10_000;
/** The samples kept per pool: an hour at one per SAMPLE_MS. */
export const HISTORY_SAMPLES = 360;

function sampleOf(p: PoolDerivation, now: number): PoolSample {
	return {
		time: now,
		claimed: p.counts.claimed,
		claimable: p.counts.free,
		desired: p.counts.desired,
	};
}

/**
 * The history after a look at the pools (all of them, or the keys given): a sample when the
 * last is SAMPLE_MS old, the exhaustion start or end. Nothing is recorded until the counts are
 * known. Returns prev itself when nothing changed.
 */
export function recordHistory(
	prev: Readonly<Record<string, PoolHistory>>,
	pools: Readonly<Record<string, PoolDerivation>>,
	now: number,
	known: boolean,
	keys: Iterable<string> = Object.keys(pools),
): Readonly<Record<string, PoolHistory>> {
	if (!known) return prev;
	let next: Record<string, PoolHistory> | null = null;
	for (const key of keys) {
		const p = pools[key];
		if (!p) continue;
		const h = prev[key];
		const exhausted = p.counts.exhausted;
		if (!h) {
			next ??= { ...prev };
			next[key] = {
				samples: [sampleOf(p, now)],
				exhaustedSince: exhausted ? now : null,
				exhaustedAtStart: exhausted,
				exhaustions: 0,
			};
			continue;
		}
		const last = h.samples.at(-1);
		const due = !last || now - last.time >= SAMPLE_MS;
		const turned = exhausted !== (h.exhaustedSince !== null);
		if (!due && !turned) continue;
		let samples = h.samples;
		if (due) {
			samples = [...h.samples, sampleOf(p, now)];
			if (samples.length > HISTORY_SAMPLES) samples = samples.slice(-HISTORY_SAMPLES);
		}
		next ??= { ...prev };
		next[key] = {
			samples,
			exhaustedSince: turned ? (exhausted ? now : null) : h.exhaustedSince,
			exhaustedAtStart: turned ? false : h.exhaustedAtStart,
			exhaustions: h.exhaustions + (turned && exhausted ? 1 : 0),
		};
	}
	if (next) for (const key of Object.keys(next)) if (!pools[key]) delete next[key];
	return next ?? prev;
}

/** Every exhaustion seen while watched, over all pools (the --bell rings when it grows). */
export function totalExhaustions(history: Readonly<Record<string, PoolHistory>>): number {
	let n = 0;
	for (const h of Object.values(history)) n += h.exhaustions;
	return n;
}

/** The audit feed as the reconstruction reads it (see AuditFeed in store.ts). */
export interface AuditWindow {
	status: string;
	/** The audit lines, any order. */
	entries: readonly AuditEntry[];
	/** The time of the oldest line the feed holds: how far back the Events reach. */
	oldest: number | null;
}

/**
 * The claimed members of a pool before the console's first sample, rebuilt from the pool's
 * Events: walking back from the first sample, a claim means one fewer claimed before it, a
 * release (forced or not) one more; clamped to 0..desired. One value per SAMPLE_MS, oldest
 * first, the last one SAMPLE_MS before the first sample; only as far back as the oldest Event
 * and at most HISTORY_SAMPLES before now. Empty unless the feed is live (denied, off, failing:
 * nothing is known). Claimable members cannot be rebuilt from Events, so only claimed is.
 */
export function claimedBefore(
	feed: AuditWindow,
	inPool: (e: AuditEntry) => boolean,
	first: { time: number; claimed: number; desired: number },
	now: number,
): number[] {
	if (feed.status !== 'live' || feed.oldest === null) return [];
	const floor = Math.max(feed.oldest, now - HISTORY_SAMPLES * SAMPLE_MS);
	const acts = feed.entries
		.filter(
			(e) =>
				(e.action === 'claim' || e.action === 'release') &&
				e.time < first.time &&
				e.time >= floor &&
				inPool(e),
		)
		.sort((a, b) => b.time - a.time);
	const top = Math.max(0, first.desired);
	const values: number[] = [];
	let claimed = Math.max(0, Math.min(first.claimed, top));
	let i = 0;
	for (let t = first.time - SAMPLE_MS; t >= floor; t -= SAMPLE_MS) {
		// undo every act after t: the count at t is the count before them
		for (; i < acts.length && (acts[i]?.time ?? 0) > t; i++) {
			const e = acts[i] as AuditEntry;
			const n = Math.max(1, e.count);
			claimed += e.action === 'claim' ? -n : n;
			claimed = Math.max(0, Math.min(claimed, top));
		}
		values.push(claimed);
	}
	return values.reverse();
}

const BARS = '▁▂▃▄▅▆▇█';

/**
 * A sparkline of values on a 0..max scale, the newest at the right, at most width characters
 * (the oldest give way).
 */
export function sparkline(values: readonly number[], max: number, width: number): string {
	if (width <= 0) return '';
	const shown = values.slice(-width);
	const top = Math.max(1, max);
	return shown
		.map((v) => {
			const level = Math.round((Math.max(0, Math.min(v, top)) / top) * (BARS.length - 1));
			return BARS[level] ?? BARS[0];
		})
		.join('');
}

/** A local time of day, HH:MM. */
function hourMinute(ms: number): string {
	const d = new Date(ms);
	return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/**
 * The exhaustion banner: `EXHAUSTED since 02:14 (12m)`, `since ≤02:14` when it was exhausted
 * already when the console first saw it; null when the pool is not exhausted.
 */
export function exhaustionBanner(h: PoolHistory | undefined, now: number): string | null {
	if (!h || h.exhaustedSince === null) return null;
	const at = `${h.exhaustedAtStart ? '≤' : ''}${hourMinute(h.exhaustedSince)}`;
	return `EXHAUSTED since ${at} (${formatAge(now - h.exhaustedSince)})`;
}
