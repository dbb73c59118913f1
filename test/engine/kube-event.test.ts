import { describe, expect, it } from 'vitest';
import { memberRanges } from '../../source/engine/kube-event.js';

const m = (...indexes: number[]) => indexes.map((index) => ({ name: `desk-${index}`, index }));

describe('memberRanges', () => {
	it('names one member alone and runs of consecutive indexes as ranges, in index order', () => {
		expect(memberRanges(m(7))).toBe('desk-7');
		expect(memberRanges(m(2, 1))).toBe('desk-1, desk-2 (2 members)');
		expect(memberRanges(m(3, 1, 2, 7, 9, 10, 11))).toBe(
			'desk-1..desk-3, desk-7, desk-9..desk-11 (7 members)',
		);
	});

	it('keeps the count when the list is too long for an Event', () => {
		const every = m(...Array.from({ length: 500 }, (_, i) => 2 * i + 1));
		const text = memberRanges(every);
		expect(text.length).toBeLessThan(1000);
		expect(text).toMatch(/, \.\.\. \(500 members\)$/);
	});
});
