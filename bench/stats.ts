/** Percentiles of samples, and the median, min and max of a figure over rounds. */

/** The p-th percentile (nearest rank) of the values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** A figure over rounds: median, min, max, and each round's value. */
export interface Spread {
	median: number;
	min: number;
	max: number;
	rounds: number[];
}

/** The spread of one figure over rounds (NaN rounds are left out; all NaN gives NaN). */
export function spread(values: readonly number[]): Spread {
	const ok = values.filter((v) => Number.isFinite(v));
	if (ok.length === 0)
		return { median: Number.NaN, min: Number.NaN, max: Number.NaN, rounds: [...values] };
	const sorted = [...ok].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
	return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, rounds: [...values] };
}
