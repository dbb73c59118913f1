import { describe, expect, it } from 'vitest';
import { ageSince, clockTime, formatAge, formatElapsed } from '../../source/text/age.js';

describe('formatAge', () => {
	it('prints a duration as kubectl prints an age (duration.HumanDuration)', () => {
		const cases: [number, string][] = [
			[0, '0s'],
			[45_000, '45s'],
			[59_999, '59s'],
			[60_000, '60s'],
			[119_000, '119s'],
			[119_999, '119s'],
			[120_000, '2m'],
			[130_000, '2m10s'],
			[200_000, '3m20s'],
			[599_000, '9m59s'],
			[600_000, '10m'],
			[900_000, '15m'],
			[179 * 60_000 + 59_000, '179m'],
			[3 * 3_600_000, '3h'],
			[18_600_000, '5h10m'],
			[7 * 3_600_000 + 59 * 60_000, '7h59m'],
			[8 * 3_600_000 + 30 * 60_000, '8h'],
			[20 * 3_600_000 + 59 * 60_000, '20h'],
			[47 * 3_600_000, '47h'],
			[48 * 3_600_000, '2d'],
			[273_600_000, '3d4h'],
			[7 * 86_400_000 + 23 * 3_600_000, '7d23h'],
			[8 * 86_400_000 + 5 * 3_600_000, '8d'],
			[729 * 86_400_000, '729d'],
			[730 * 86_400_000, '2y'],
			[800 * 86_400_000, '2y70d'],
			[9 * 365 * 86_400_000 + 12 * 86_400_000, '9y'],
			// Up to 2 s in the future (clock skew) is 0s; more is <invalid>, as in kubectl.
			[-1_999, '0s'],
			[-2_000, '<invalid>'],
		];
		expect(cases.map(([ms]) => [ms, formatAge(ms)])).toEqual(cases);
	});
});

describe('the console helpers beside formatAge', () => {
	it('ageSince is the age of a known time, and nothing for an unknown one', () => {
		expect(ageSince(1_000, 201_000)).toBe('3m20s');
		expect(ageSince(null, 201_000)).toBe('');
		expect(ageSince(undefined, 201_000)).toBe('');
	});

	it('formatElapsed counts tenths under 10 s, then seconds, then minutes', () => {
		expect(formatElapsed(-5)).toBe('0.0s');
		expect(formatElapsed(400)).toBe('0.4s');
		expect(formatElapsed(12_300)).toBe('12s');
		expect(formatElapsed(125_000)).toBe('2m05s');
	});

	it('clockTime is HH:MM:SS of the local time', () => {
		const at = new Date(2026, 0, 2, 3, 4, 5).getTime();
		expect(clockTime(at)).toBe('03:04:05');
	});
});
