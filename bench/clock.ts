/** One clock for every benchmark process: epoch milliseconds with sub-millisecond resolution. */

/** Now, as epoch milliseconds (comparable across the processes of one machine). */
export function wallMs(): number {
	return performance.timeOrigin + performance.now();
}

/** Resolves after ms. */
export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
