/**
 * The reconcile decision over arbitrary members (fast-check): whatever the cluster holds, a
 * step that destroys something (replace, delete) is never planned for a member a user has
 * claimed, one in maintenance, or one a live reconciler holds; a create only where nothing
 * exists; a delete only above the size.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planStep } from '../../source/engine/member-step.js';
import {
	formatMicroTime,
	type LeaseObject,
	memberView,
	type PodObject,
	type PvcObject,
	RECONCILER_IDENTITY,
} from '../../source/pool/index.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const meta = (name: string) =>
	fc.record({
		name: fc.constant(name),
		deletionTimestamp: maybe(fc.constant('2026-11-29T09:00:00Z')),
		labels: maybe(
			fc.record({
				'corral.dev/vdi-ct-pool': fc.constant('desk'),
				'corral.dev/vdi-ct-source': fc.constantFrom('h-current', 'h-old', ''),
			}),
		),
		annotations: maybe(
			fc.dictionary(
				fc.constantFrom('corral.dev/vdi-maintenance', 'corral.dev/vdi-assigned-to', 'x'),
				fc.string({ maxLength: 8 }),
			),
		),
	});

const pod: fc.Arbitrary<PodObject | null> = fc.option(
	fc.record({
		metadata: meta('desk-2'),
		spec: maybe(fc.record({ nodeName: maybe(fc.constantFrom('node-a', '')) })),
		status: maybe(
			fc.record({
				phase: maybe(fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown')),
				conditions: maybe(
					fc.array(
						fc.record({
							type: fc.constantFrom('Ready', 'PodScheduled'),
							status: fc.constantFrom('True', 'False'),
							reason: maybe(fc.constantFrom('Unschedulable', 'x')),
						}),
						{ maxLength: 3 },
					),
				),
				containerStatuses: maybe(
					fc.array(
						fc.record({
							name: fc.constant('ct'),
							state: maybe(
								fc.record({
									waiting: maybe(
										fc.record({
											reason: maybe(fc.constantFrom('CrashLoopBackOff', 'ContainerCreating')),
										}),
									),
								}),
							),
						}),
						{ maxLength: 1 },
					),
				),
			}),
		),
	}) as fc.Arbitrary<PodObject>,
	{ nil: null },
);

const pvc: fc.Arbitrary<PvcObject | null> = fc.option(
	fc.record({
		metadata: meta('desk-2-data'),
		status: maybe(fc.record({ phase: maybe(fc.constantFrom('Pending', 'Bound', 'Lost')) })),
	}) as fc.Arbitrary<PvcObject>,
	{ nil: null },
);

/** A Lease acquired some time around NOW, by a user or the reconciler, of any duration. */
const lease: fc.Arbitrary<LeaseObject | null> = fc.option(
	fc
		.record({
			holder: fc.oneof(
				fc.constant(RECONCILER_IDENTITY),
				fc.constantFrom('alice@example.com', 'bob', ''),
			),
			agoSeconds: fc.integer({ min: -60, max: 8000 }),
			duration: maybe(fc.constantFrom(600, 3600, 0, -5)),
			unreadableTime: fc.boolean(),
		})
		.map(
			({ holder, agoSeconds, duration, unreadableTime }): LeaseObject => ({
				metadata: {
					name: 'corral-vdi-ct-desk-2',
					labels: { 'corral.dev/vdi-ct-pool': 'desk', 'corral.dev/vdi-ct-member': 'desk-2' },
				},
				spec: {
					holderIdentity: holder,
					acquireTime: unreadableTime ? 'soon' : formatMicroTime(NOW - agoSeconds * 1000),
					...(duration !== undefined ? { leaseDurationSeconds: duration } : {}),
				},
			}),
		),
	{ nil: null },
);

describe('the reconcile decision over arbitrary members', () => {
	it('never destroys a claimed, maintained or live-reconciled member', () => {
		fc.assert(
			fc.property(
				pod,
				pvc,
				lease,
				fc.integer({ min: 0, max: 4 }),
				fc.integer({ min: -700_000, max: 4_000_000 }),
				(p, v, l, size, skew) => {
					const now = NOW + skew;
					const view = memberView(
						{ name: 'desk-2', index: 2, pod: p, pvc: v, lease: l },
						{ size, sourceHash: 'h-current' },
						now,
					);
					const step = planStep(view, now);
					const destroys = step === 'replace' || step === 'delete';
					const userClaim = view.hasLease && !view.reconciling;
					const liveReconciler =
						view.reconciling && view.leaseExpiresAt !== null && now < view.leaseExpiresAt;
					if (userClaim) expect([null, 'start']).toContain(step);
					if (liveReconciler) expect(step).toBeNull();
					if (view.maintenance) expect(destroys).toBe(false);
					if (view.state === 'Terminating') expect(step).toBeNull();
					if (step === 'create') expect(view.state).toBe('Missing');
					if (step === 'delete') expect(view.aboveSize).toBe(true);
					if (step === 'replace')
						expect(view.drifted || view.state === 'Failed' || view.reconciling).toBe(true);
					if (step === 'takeover') expect(view.reconciling).toBe(true);
				},
			),
			{ numRuns: 5000 },
		);
	});

	it('plans a destructive step for an unclaimed drifted member (the property is not vacuous)', () => {
		const seen = new Set<string | null>();
		fc.assert(
			fc.property(pod, pvc, lease, fc.integer({ min: 0, max: 4 }), (p, v, l, size) => {
				const view = memberView(
					{ name: 'desk-2', index: 2, pod: p, pvc: v, lease: l },
					{ size, sourceHash: 'h-current' },
					NOW,
				);
				seen.add(planStep(view, NOW));
			}),
			{ numRuns: 3000 },
		);
		for (const step of [null, 'create', 'start', 'replace', 'delete', 'takeover'])
			expect(seen).toContain(step);
	});
});
