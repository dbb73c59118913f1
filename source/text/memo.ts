/** Answers kept by their text: a map that forgets what was not used lately, and memoisation on it. */

/**
 * A map that forgets what was not used lately: two generations, the older dropped whole
 * when the newer is full (what is read is moved to the newer: the console's caches keep what
 * the last frames used).
 */
export class TwoGenerationCache<V> {
	private young = new Map<string, V>();
	private old = new Map<string, V>();

	constructor(private readonly limit: number) {}

	get(key: string): V | undefined {
		const hit = this.young.get(key);
		if (hit !== undefined) return hit;
		const aged = this.old.get(key);
		if (aged !== undefined) this.set(key, aged);
		return aged;
	}

	set(key: string, value: V): void {
		if (this.young.size >= this.limit) {
			this.old = this.young;
			this.young = new Map();
		}
		this.young.set(key, value);
	}

	get size(): number {
		return this.young.size + this.old.size;
	}
}

/**
 * A pure function of a string, memoised: its answers kept by their text, for the texts used
 * lately (at most about twice `limit`).
 */
export function memoizeByText<T>(of: (text: string) => T, limit = 2048): (text: string) => T {
	const answers = new TwoGenerationCache<T>(limit);
	return (text: string) => {
		let answer = answers.get(text);
		if (answer === undefined) {
			answer = of(text);
			answers.set(text, answer);
		}
		return answer;
	};
}
