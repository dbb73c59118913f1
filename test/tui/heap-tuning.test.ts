import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectOnce, tuneHeap } from '../../source/tui/session/heap-tuning.js';

describe('heap tuning', () => {
	it('sets the growing factor and runs one full collection that frees garbage', () => {
		tuneHeap();
		let garbage: unknown[] | null = [];
		for (let i = 0; i < 200_000; i++) garbage.push({ i, text: `row ${i}` });
		const before = getHeapStatistics().used_heap_size;
		garbage = null;
		expect(collectOnce()).toBe(true);
		expect(getHeapStatistics().used_heap_size).toBeLessThan(before);
	});
});
