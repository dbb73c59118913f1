/** The gradual rollout's decisions: the limit, what is held back, the progress. */

import { describe, expect, it } from 'vitest';
import { groupMembers, memberView } from '../../source/pool/member-state.js';
import {
	limitRollout,
	maxUnavailableOf,
	rolloutProgress,
	rolloutText,
} from '../../source/pool/rollout.js';
import { specProblems, validateSpec } from '../../source/pool/spec.js';
import { countMembers, shortfall } from '../../source/pool/status.js';
import { HASH, lease, NOW, pod, pvc } from './fixtures.js';

const OLD = 'bbbbbbbbbbbbbbbb';

/** Views of pool desk of size 6: members 1-4 on the old source and Ready, 5 Starting on the new, 6 claimed and old. */
function views(waves = false) {
	const pods = [1, 2, 3, 4].map((i) => pod(`desk-${i}`, { hash: OLD }));
	pods.push(pod('desk-5', { phase: 'Pending', conditions: [] }));
	pods.push(pod('desk-6', { hash: OLD }));
	const pvcs = [1, 2, 3, 4, 6].map((i) => pvc(`desk-${i}`, { hash: OLD }));
	pvcs.push(pvc('desk-5'));
	const members = groupMembers('desk', 6, {
		pods,
		pvcs,
		leases: [lease('desk-6', 'alice@example.com')],
	});
	return members.map((m) => memberView(m, { size: 6, sourceHash: HASH, waves }, NOW));
}

describe('the rollout', () => {
	it('resolves maxUnavailable: a number, a percentage of the size rounded down, at least 1; no limit when absent (the seed: all at once)', () => {
		expect(maxUnavailableOf({ size: 20, maxUnavailable: 3 })).toBe(3);
		expect(maxUnavailableOf({ size: 20, maxUnavailable: '10%' })).toBe(2);
		expect(maxUnavailableOf({ size: 20, maxUnavailable: '25%' })).toBe(5);
		expect(maxUnavailableOf({ size: 3, maxUnavailable: '25%' })).toBe(1);
		expect(maxUnavailableOf({ size: 0, maxUnavailable: '25%' })).toBe(1);
		expect(maxUnavailableOf({ size: 20 })).toBeNull();
	});

	it('holds back replaces of Ready drifted members beyond the budget, lowest index first, and nothing else', () => {
		const v = views();
		const plans = v
			.filter((x) => x.drifted && !x.holder)
			.map((view) => ({ view, step: 'replace' }));
		plans.push({ view: v[4]!, step: 'start' });
		// limit 2, one member (desk-5, Starting) already unavailable: one replace goes
		const { plans: kept, heldBack } = limitRollout(plans, v, 2);
		expect(kept.map((p) => `${p.step} ${p.view.name}`)).toEqual(['replace desk-1', 'start desk-5']);
		expect(heldBack).toBe(3);
		expect(limitRollout(plans, v, 1).plans.map((p) => p.view.name)).toEqual(['desk-5']);
		expect(limitRollout(plans, v, 10).heldBack).toBe(0);
	});

	it('reports progress over the unclaimed members while one of them has drifted', () => {
		expect(rolloutProgress(views(), HASH)).toEqual({ target: HASH, updated: 1, total: 5 });
		expect(rolloutProgress(views(), null)).toBeNull();
	});

	it('is an optional spec key, a whole number of at least 1 or a percentage, kept out of the spec text unless set', () => {
		const base = { image: 'ghcr.io/example/desktop:1', size: 3 };
		expect(validateSpec({ ...base, maxUnavailable: 2 }).maxUnavailable).toBe(2);
		expect(validateSpec({ ...base, maxUnavailable: '50%' }).maxUnavailable).toBe('50%');
		expect('maxUnavailable' in validateSpec(base)).toBe(false);
		for (const bad of [0, -1, 1.5, '0%', '101%', '3', 'all', true])
			expect(specProblems({ ...base, maxUnavailable: bad }).join()).toMatch(
				/maxUnavailable .* must be a whole number of at least 1 or a percentage/,
			);
	});

	it('shows the image it rolls to, the source hash only when the image is not known', () => {
		expect(rolloutProgress(views(), HASH, 'ghcr.io/example/desktop:2')).toEqual({
			target: HASH,
			image: 'ghcr.io/example/desktop:2',
			updated: 1,
			total: 5,
		});
		expect(
			rolloutText({ target: HASH, image: 'ghcr.io/example/desktop:2', updated: 1, total: 5 }),
		).toBe('rolling 1/5 to ghcr.io/example/desktop:2');
		expect(rolloutText({ target: HASH, updated: 1, total: 5 })).toBe(
			`rolling 1/5 to source ${HASH.slice(0, 8)}…`,
		);
	});
});

describe('members waiting for their wave', () => {
	it('stay claimable with the old image, and say so: the pool is not exhausted', () => {
		const v = views(true);
		const old = v.filter((x) => x.index <= 4);
		for (const x of old)
			expect(x).toMatchObject({
				drifted: true,
				waitsForWave: true,
				free: true,
				message: 'old definition, replaced after release or in its wave',
			});
		// the claimed one on the old source is replaced after its release
		expect(v[5]).toMatchObject({ free: false, waitsForWave: true });
		expect(v[5]!.message).toBe('old definition, replaced after release or in its wave');
		const c = countMembers(6, v);
		expect(c).toMatchObject({ free: 5, claimableNow: 4, exhausted: false, drifted: 5 });
		// they count as free in the no-free answer's parts too
		expect(shortfall(6, v)).toMatchObject({ free: 5, drifted: 0, claimed: 1 });
	});

	it('without waves (no maxUnavailable) a drifted member is not free: the next reconcile replaces it', () => {
		const v = views(false);
		expect(v[0]).toMatchObject({ drifted: true, waitsForWave: false, free: false });
		expect(v[0]!.message).toBe('old definition, replaced by the next reconcile');
		expect(v[5]!.message).toBe('old definition, replaced after release');
		expect(countMembers(6, v)).toMatchObject({ free: 1, exhausted: false });
	});
});
