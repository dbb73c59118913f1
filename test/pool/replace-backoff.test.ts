import { describe, expect, it } from 'vitest';
import {
	type BackoffView,
	failureKind,
	parseReplaceRecord,
	replaceBackoffMs,
	replaceHeldUntil,
	replaceRecordJson,
	replaceStorm,
} from '../../source/pool/replace-backoff.js';

const T = Date.parse('2026-11-29T10:00:00Z');

function view(over: Partial<BackoffView> = {}): BackoffView {
	return {
		name: 'desk-1',
		state: 'Failed',
		drifted: false,
		message: 'ImagePullBackOff: Back-off pulling image "x"',
		replaces: 0,
		replacedAt: null,
		...over,
	};
}

describe('replace backoff', () => {
	it('waits 10 s after the first replace, doubling to at most 5 minutes', () => {
		expect([0, 1, 2, 3, 5, 6, 7, 50].map(replaceBackoffMs)).toEqual([
			0, 10_000, 20_000, 40_000, 160_000, 300_000, 300_000, 300_000,
		]);
	});

	it('round-trips the PVC annotation and refuses what it cannot read', () => {
		const text = replaceRecordJson({ count: 2, at: T });
		expect(text).toBe('{"count":2,"at":"2026-11-29T10:00:00Z"}');
		expect(parseReplaceRecord({ 'corral.dev/vdi-replaced': text })).toEqual({ count: 2, at: T });
		for (const bad of [
			'',
			'x',
			'{"count":0,"at":"2026-11-29T10:00:00Z"}',
			'{"count":1}',
			'{"count":1.5,"at":"2026-11-29T10:00:00Z"}',
		])
			expect(parseReplaceRecord({ 'corral.dev/vdi-replaced': bad })).toBeNull();
		expect(parseReplaceRecord(undefined)).toBeNull();
	});

	it('holds a Failed member replaced before until its wait is over; never a drifted one', () => {
		const v = view({ replaces: 2, replacedAt: T });
		expect(replaceHeldUntil(v, T + 19_999)).toBe(T + 20_000);
		expect(replaceHeldUntil(v, T + 20_000)).toBeNull();
		expect(replaceHeldUntil({ ...v, drifted: true }, T)).toBeNull();
		expect(replaceHeldUntil({ ...v, state: 'Ready' }, T)).toBeNull();
		expect(replaceHeldUntil(view(), T)).toBeNull();
	});

	it('groups the two faces of an image pull failure as one kind', () => {
		expect(failureKind('ErrImagePull: rpc error')).toBe('ImagePullBackOff');
		expect(failureKind('ImagePullBackOff: Back-off')).toBe('ImagePullBackOff');
		expect(failureKind('CrashLoopBackOff: back-off 10s')).toBe('CrashLoopBackOff');
		expect(failureKind('Error (exit code 1)')).toBe('Error');
		expect(failureKind('')).toBe('Failed');
	});

	it('sees a storm only when more than half fail the same way after enough replaces', () => {
		const failing = (n: number, replaces: number) =>
			Array.from({ length: n }, (_, i) => view({ name: `desk-${i + 1}`, replaces, replacedAt: T }));
		expect(replaceStorm(failing(2, 2), 4)).toBeNull(); // half is not most
		expect(replaceStorm(failing(3, 1), 4)).toBeNull(); // not replaced often enough yet
		expect(replaceStorm(failing(3, 2), 4)).toMatchObject({
			kind: 'ImagePullBackOff',
			members: ['desk-1', 'desk-2', 'desk-3'],
			size: 4,
		});
		// different failures are not one storm; drifted members are not counted
		const mixed = [
			...failing(2, 2),
			view({ name: 'desk-3', message: 'CrashLoopBackOff: x', replaces: 2 }),
		];
		expect(replaceStorm(mixed, 4)).toBeNull();
		expect(
			replaceStorm(
				failing(3, 2).map((v) => ({ ...v, drifted: true })),
				4,
			),
		).toBeNull();
		expect(replaceStorm([], 0)).toBeNull();
	});
});
