/** Why the plan leaves a member alone, and why it touches one (issue 26), from member views. */

import { describe, expect, it } from 'vitest';
import { planStep } from '../../source/engine/member-step.js';
import { buildPlan, leftAloneReason, type PlanInput } from '../../source/engine/reconcile-plan.js';
import { RECONCILER_IDENTITY } from '../../source/pool/errors.js';
import { type MemberObjects, type MemberView, memberView } from '../../source/pool/member-state.js';
import { HASH, lease, NOW, pod, pvc } from '../pool/fixtures.js';

const OTHER = 'b'.repeat(16);

function view(objs: Omit<MemberObjects, 'name' | 'index'>, size = 3): MemberView {
	return memberView({ name: 'desk-2', index: 2, ...objs }, { size, sourceHash: HASH }, NOW);
}

function input(views: MemberView[], over: Partial<PlanInput> = {}): PlanInput {
	const steps = views.flatMap((v) => {
		const step = planStep(v, NOW);
		return step ? [{ view: v, step }] : [];
	});
	return {
		pool: 'desk',
		now: NOW,
		dryRun: false,
		views,
		steps,
		stormed: [],
		storm: null,
		heldBack: [],
		limit: null,
		...over,
	};
}

const failed = () => pod('desk-2', { phase: 'Failed' });

describe('the reason a member is left alone', () => {
	const cases: Array<[string, MemberView, string | null]> = [
		['ready and in line: not listed', view({ pod: pod('desk-2'), pvc: pvc('desk-2') }), null],
		[
			'claimed and in line: not listed',
			view({ pod: pod('desk-2'), pvc: pvc('desk-2'), lease: lease('desk-2', 'al@x') }),
			null,
		],
		[
			'claimed and drifted',
			view({
				pod: pod('desk-2', { hash: OTHER }),
				pvc: pvc('desk-2'),
				lease: lease('desk-2', 'al@x'),
			}),
			'claimed',
		],
		[
			'in maintenance and failed',
			view({ pod: failed(), pvc: pvc('desk-2', { maintenance: 'disk' }) }),
			'in maintenance',
		],
		[
			'terminating',
			view({ pod: pod('desk-2', { deleting: true }), pvc: pvc('desk-2') }),
			'terminating',
		],
		[
			'a live reconciler Lease',
			view({ lease: lease('desk-2', RECONCILER_IDENTITY, 5, 600) }),
			'another reconciler holds its Lease',
		],
		[
			"a stranger's pod",
			{ ...view({ pvc: pvc('desk-2') }), foreign: ['pod'] },
			"a stranger's object under its name (pod)",
		],
		[
			'an older Corral claim',
			{ ...view({ pod: pod('desk-2'), pvc: pvc('desk-2') }), corralClaim: 'x' },
			'an older Corral claim',
		],
	];
	for (const [what, v, reason] of cases)
		it(what, () => {
			expect(planStep(v, NOW)).toBeNull();
			expect(leftAloneReason(v, input([v]))?.reason ?? null).toBe(reason);
		});

	it('a live reconciler Lease says until when', () => {
		const v = view({ lease: lease('desk-2', RECONCILER_IDENTITY, 5, 600) });
		expect(leftAloneReason(v, input([v]))?.until).toBe(NOW + 5 * 60_000);
	});

	it('a member that failed again after a replace: its backoff, until when', () => {
		const v = {
			...view({ pod: failed(), pvc: pvc('desk-2') }),
			replaces: 1,
			replacedAt: NOW - 1000,
		};
		expect(planStep(v, NOW)).toBeNull();
		const why = leftAloneReason(v, input([v]));
		expect(why?.reason).toBe('replace backoff');
		expect(why?.until).toBeGreaterThan(NOW);
	});

	it('held back by the rollout, and stopped by a storm, say so', () => {
		const v = view({ pod: pod('desk-2', { hash: OTHER }), pvc: pvc('desk-2') });
		expect(leftAloneReason(v, input([v], { heldBack: ['desk-2'], limit: 2 }))?.reason).toBe(
			'held back by the rollout (at most 2 unavailable at once; claimable with the old image)',
		);
		const storm = { kind: 'ImagePullBackOff', members: ['desk-2'], example: '', size: 3 };
		expect(leftAloneReason(v, input([v], { stormed: ['desk-2'], storm }))?.reason).toBe(
			'replacing is stopped: most of the pool fails the same way (ImagePullBackOff)',
		);
	});
});

describe('the reason a step touches a member', () => {
	it('missing; stopped; drifted: what differs; failed: why; above size', () => {
		const views = [
			memberView({ name: 'desk-1', index: 1 }, { size: 3, sourceHash: HASH }, NOW),
			memberView(
				{ name: 'desk-2', index: 2, pvc: pvc('desk-2') },
				{ size: 3, sourceHash: HASH },
				NOW,
			),
			memberView(
				{ name: 'desk-3', index: 3, pod: failed(), pvc: pvc('desk-3') },
				{ size: 3, sourceHash: HASH },
				NOW,
			),
			memberView(
				{ name: 'desk-4', index: 4, pod: pod('desk-4'), pvc: pvc('desk-4') },
				{ size: 3, sourceHash: HASH },
				NOW,
			),
		];
		const plan = buildPlan(input(views));
		const reasons = Object.fromEntries(
			plan.steps.flatMap((s) => s.members.map((m) => [m.member, `${s.kind}: ${m.reason}`])),
		);
		expect(reasons['desk-1']).toBe('create: missing');
		expect(reasons['desk-2']).toBe('start: stopped');
		expect(reasons['desk-3']).toMatch(/^replace: failed: /);
		expect(reasons['desk-4']).toBe('delete: above size (index 4)');
		expect(plan.leftAlone).toEqual([]);
		expect(plan.steps.map((s) => s.kind)).toEqual([
			'create',
			'start',
			'replace',
			'delete',
			'takeover',
		]);
	});
});
