/** A seeded random source for the chaos driver: the same seed makes the same decisions. */

/** A seeded pseudo-random source (mulberry32) with the helpers the chaos actors use. */
export class Random {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** A number in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** A whole number in [min, max]. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	/** True with probability p. */
	chance(p: number): boolean {
		return this.next() < p;
	}

	/** One element of a non-empty list. */
	pick<T>(items: readonly T[]): T {
		const item = items[Math.floor(this.next() * items.length)];
		if (item === undefined) throw new Error('pick from an empty list');
		return item;
	}

	/** One key chosen by weight. */
	weighted<K extends string>(weights: Record<K, number>): K {
		const entries = Object.entries(weights) as Array<[K, number]>;
		const total = entries.reduce((s, [, w]) => s + Math.max(0, w), 0);
		let r = this.next() * total;
		for (const [k, w] of entries) {
			r -= Math.max(0, w);
			if (r < 0) return k;
		}
		return entries[entries.length - 1]![0];
	}

	/** A child source for one actor: its own sequence, derived from this one. */
	fork(): Random {
		return new Random(Math.floor(this.next() * 4294967296));
	}
}
