/**
 * The narrated reconcile (issue 26): every trace event becomes plain sentences, one per
 * member a plan touches and one per member it leaves alone, each accurate to its reason and
 * with the cluster's names made inert.
 */

import { describe, expect, it } from 'vitest';
import {
	leftAloneSentence,
	NARRATION_MAX,
	narrate,
	plannedSentence,
	spokenDrift,
} from '../../source/engine/narration.js';
import { STEP_KINDS, type TraceEvent } from '../../source/engine/reconcile-plan.js';

const T = Date.parse('2026-12-02T12:00:00Z');

function plan(
	steps: Partial<Record<string, Array<{ member: string; reason: string }>>>,
	leftAlone: Array<{ member: string; reason: string; until?: number }> = [],
): TraceEvent {
	return {
		type: 'plan',
		time: T,
		pool: 'desk',
		dryRun: false,
		steps: STEP_KINDS.map((kind) => ({ kind, members: steps[kind] ?? [] })),
		leftAlone,
	};
}

describe('narration of a plan', () => {
	it('tells a drift as the presenter would say it', () => {
		const lines = narrate(
			plan({
				replace: [
					{
						member: 'desk-3',
						reason: 'drifted: image ghcr.io/example/desktop:1 -> ghcr.io/example/desktop:2',
					},
				],
			}),
		);
		expect(lines.map((l) => l.kind)).toEqual(['plan', 'step']);
		expect(lines[0]?.text).toBe('The reconciler reads pool desk and plans 1 step.');
		expect(lines[1]).toMatchObject({ member: 'desk-3', time: T, pool: 'desk' });
		expect(lines[1]?.text).toBe(
			'desk-3 drifted (image :1 → :2) and is unclaimed: the reconciler takes its Lease, so no one can claim it while it is rebuilt, then deletes its pod and PVC and makes it again from the current definition.',
		);
	});

	it('has one sentence for every seed step and a takeover', () => {
		const steps = {
			create: [{ member: 'desk-1', reason: 'missing' }],
			start: [
				{ member: 'desk-2', reason: 'stopped' },
				{ member: 'desk-3', reason: 'stopped (claimed: a start destroys nothing)' },
			],
			replace: [
				{ member: 'desk-4', reason: 'failed: CrashLoopBackOff' },
				{ member: 'desk-5', reason: 'taken over: left mid-step by a reconciler that stopped' },
			],
			delete: [{ member: 'desk-7', reason: 'above size (index 7)' }],
			takeover: [
				{ member: 'desk-8', reason: 'an expired reconciler Lease with nothing left to make' },
			],
		};
		const texts = narrate(plan(steps))
			.filter((l) => l.kind === 'step')
			.map((l) => l.text);
		expect(texts).toHaveLength(7);
		expect(texts[0]).toMatch(/^desk-1 is missing: .*creates its PVC and pod/);
		expect(texts[1]).toMatch(/^desk-2 is stopped \(its PVC is there, its pod is not\)/);
		expect(texts[2]).toMatch(/^desk-3 is stopped and claimed: .*a start destroys nothing/);
		expect(texts[3]).toMatch(/^desk-4 failed \(CrashLoopBackOff\) and is unclaimed/);
		expect(texts[4]).toMatch(/^desk-5's Lease was left by a reconciler that stopped mid-step/);
		expect(texts[4]).toMatch(/takes the Lease over/);
		expect(texts[5]).toMatch(/^desk-7 is above the pool's size \(index 7\) .*the pool shrinks/);
		expect(texts[6]).toMatch(/^desk-8 has an expired reconciler Lease/);
		for (const t of texts) expect(t).toMatch(/\.$/);
	});

	it('tells every reason a member is left alone', () => {
		const until = T + 65_000;
		const cases: Array<[{ member: string; reason: string; until?: number }, RegExp]> = [
			[
				{ member: 'desk-1', reason: 'claimed' },
				/^desk-1 needs work but is claimed: a user's Lease means hands off/,
			],
			[
				{ member: 'desk-2', reason: 'in maintenance' },
				/in maintenance: it is left to the administrator\.$/,
			],
			[
				{
					member: 'desk-3',
					reason:
						'held back by the rollout (at most 1 unavailable at once; claimable with the old image)',
				},
				/drifted but waits for a later wave: at most 1 member may be down at once.*claimable with the old image\.$/,
			],
			[
				{
					member: 'desk-4',
					reason: 'replacing is stopped: most of the pool fails the same way (ErrImagePull)',
				},
				/most of the pool fails the same way \(ErrImagePull\), so replacing stops/,
			],
			[{ member: 'desk-5', reason: 'terminating' }, /^desk-5 is terminating/],
			[
				{ member: 'desk-6', reason: "a stranger's object under its name (Pod desk-6)" },
				/not the pool's has its name \(Pod desk-6\), and ctpool never changes/,
			],
			[
				{ member: 'desk-7', reason: 'its Lease is unreadable: renewTime is not a time' },
				/its Lease is unreadable \(renewTime is not a time\)\.$/,
			],
			[{ member: 'desk-8', reason: 'an older Corral claim' }, /an older Corral tool claims it/],
			[
				{ member: 'desk-9', reason: 'another reconciler holds its Lease', until },
				/another reconciler holds its Lease \(until 12:01:05\); should that one die/,
			],
			[
				{ member: 'desk-10', reason: 'replace backoff', until },
				/waits out its backoff \(until 12:01:05\)/,
			],
			[{ member: 'desk-11', reason: 'something new' }, /^desk-11 is left alone: something new\.$/],
		];
		for (const [l, re] of cases) expect(leftAloneSentence(l)).toMatch(re);
		const lines = narrate(
			plan(
				{},
				cases.map(([l]) => l),
			),
		);
		expect(lines[0]?.text).toBe(
			'Pool desk is as its definition says: this pass changes nothing, and leaves 11 members alone.',
		);
		expect(lines.filter((l) => l.kind === 'left-alone')).toHaveLength(11);
	});

	it('makes hostile names and reasons inert and bounded', () => {
		const evil = `desk-1\u001b]0;owned\u0007\u001b[2J${'x'.repeat(5000)}`;
		const lines = narrate({
			...(plan({ replace: [{ member: evil, reason: `failed: \u001b[31m${'y'.repeat(5000)}` }] }, [
				{ member: evil, reason: `its Lease is unreadable: \u009b${'z'.repeat(5000)}` },
			]) as Extract<TraceEvent, { type: 'plan' }>),
			pool: `p\u001b[1m${'q'.repeat(3000)}`,
		});
		for (const l of lines) {
			expect(l.text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
			expect(l.text.length).toBeLessThanOrEqual(NARRATION_MAX + 2);
			expect(l.pool.length).toBeLessThanOrEqual(81);
			expect((l.member ?? '').length).toBeLessThanOrEqual(81);
		}
	});

	it('shortens an image drift only when the repository is the same', () => {
		expect(spokenDrift('image a/b:1 -> a/b:2; memory 1Gi -> 2Gi')).toBe(
			'image :1 → :2; memory 1Gi → 2Gi',
		);
		expect(spokenDrift('image a/b:1 -> c/d:1')).toBe('image a/b:1 → c/d:1');
		expect(plannedSentence('replace', { member: 'm', reason: 'drifted' })).toMatch(
			/^m drifted and is unclaimed/,
		);
	});
});

describe('narration of a step and a pass', () => {
	it('tells each step as it goes and how the pass ended', () => {
		const base = { time: T, pool: 'desk', member: 'desk-3', step: 'replace' as const };
		const texts = [
			...narrate({ type: 'step-start', ...base }),
			...narrate({ type: 'step-progress', ...base, progress: 'lease-taken', detail: 'x' }),
			...narrate({ type: 'step-progress', ...base, progress: 'lease-released', detail: 'x' }),
			...narrate({ type: 'step-end', ...base, result: 'done', ms: 1234 }),
			...narrate({
				type: 'step-progress',
				...base,
				step: 'delete',
				progress: 'lease-released',
				detail: 'x',
			}),
			...narrate({ type: 'step-end', ...base, result: 'failed', ms: 5, error: 'forbidden' }),
			...narrate({ type: 'step-end', ...base, result: 'skipped', ms: 5 }),
			...narrate({
				type: 'done',
				time: T,
				pool: 'desk',
				dryRun: false,
				ok: true,
				done: 3,
				failed: 0,
				skipped: 1,
				statusWritten: true,
				ms: 2500,
				errors: [],
			}),
		].map((l) => l.text);
		expect(texts).toEqual([
			'desk-3: the replace begins.',
			'desk-3 (replace): the reconciler holds its Lease now, so no one can claim it meanwhile.',
			'desk-3 (replace): the reconciler lets go of its Lease: the member is claimable again.',
			'desk-3 is replaced, in 1.2 s.',
			'desk-3 (delete): the reconciler lets go of its Lease: the member is gone.',
			"desk-3's replace failed: forbidden; the next pass tries again.",
			"desk-3's replace is skipped: nothing was left to do, or someone else holds it.",
			'The pass over pool desk is done in 2.5 s: 3 done, 0 failed, 1 skipped; the status is recorded.',
		]);
	});
});
