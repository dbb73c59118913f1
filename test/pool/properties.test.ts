import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	MEMBER_STATES,
	memberState,
	memberView,
	PoolError,
	parseSpec,
	serialiseSpec,
	specProblems,
	validateSpec,
} from '../../source/pool/index.js';
import { SOURCE_FIELDS_BY_WEIGHT } from '../../source/pool/spec.js';
import { sanitize } from '../../source/text/sanitize.js';
import { NOW } from './fixtures.js';

/** Arbitrary JSON-ish values, with the spec's keys showing up often. */
const key = fc.oneof(
	fc.constantFrom(...SOURCE_FIELDS_BY_WEIGHT, 'mode', 'size'),
	fc.string({ maxLength: 8 }),
);
const leaf = fc.oneof(
	fc.string({ maxLength: 20 }),
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.constantFrom('ubuntu', '1', '2Gi', '-1', 'persistent', 'ephemeral', 'ghcr.io/a/b:1'),
);
const value = fc.letrec((tie) => ({
	v: fc.oneof(
		{ depthSize: 'small' },
		leaf,
		fc.array(tie('v'), { maxLength: 3 }),
		fc.dictionary(key, tie('v'), { maxKeys: 4 }),
	),
})).v;
const candidate = fc.oneof(fc.dictionary(key, value, { maxKeys: 10 }), value);

describe('spec parser over arbitrary input', () => {
	it('either accepts with every field typed, or throws a PoolError with a message', () => {
		fc.assert(
			fc.property(candidate, (raw) => {
				let spec: ReturnType<typeof validateSpec>;
				try {
					spec = validateSpec(raw);
				} catch (e) {
					expect(e).toBeInstanceOf(PoolError);
					expect((e as PoolError).message.length).toBeGreaterThan(10);
					expect(['invalid-spec', 'persistent']).toContain((e as PoolError).kind);
					return;
				}
				expect(specProblems(raw)).toEqual([]);
				expect(typeof spec.image).toBe('string');
				expect(Number.isInteger(spec.size)).toBe(true);
				expect(spec.size).toBeGreaterThanOrEqual(0);
				expect(spec.mode).toBe('ephemeral');
				expect(parseSpec(serialiseSpec(spec), 'p')).toEqual(spec);
			}),
			{ numRuns: 2000 },
		);
	});

	it('never throws anything but a PoolError on arbitrary text', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
				try {
					parseSpec(text, 'desk');
				} catch (e) {
					expect(e).toBeInstanceOf(PoolError);
				}
			}),
			{ numRuns: 2000 },
		);
	});
});

/** Arbitrary pod-ish and PVC-ish objects, with the fields member state reads. */
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const cond = fc.record({
	type: fc.constantFrom('Ready', 'PodScheduled', 'Initialized', 'X'),
	status: fc.constantFrom('True', 'False', 'Unknown'),
	reason: maybe(fc.constantFrom('Unschedulable', 'ContainersNotReady', 'x')),
	message: maybe(fc.string({ maxLength: 30 })),
});
const containerStatus = fc.record({
	name: fc.constant('ct'),
	state: maybe(
		fc.record({
			waiting: maybe(
				fc.record({
					reason: maybe(
						fc.constantFrom('CrashLoopBackOff', 'ErrImagePull', 'ContainerCreating', 'x'),
					),
					message: maybe(fc.string()),
				}),
			),
			terminated: maybe(fc.record({ reason: maybe(fc.string()), exitCode: maybe(fc.integer()) })),
		}),
	),
});
const meta = fc.record({
	name: fc.constant('desk-1'),
	deletionTimestamp: maybe(fc.constant('2026-11-29T09:00:00Z')),
	labels: maybe(
		fc.dictionary(
			fc.constantFrom('corral.dev/vdi-ct-source', 'corral.dev/vdi-ct-pool'),
			fc.string({ maxLength: 16 }),
		),
	),
	annotations: maybe(
		fc.dictionary(fc.constantFrom('corral.dev/vdi-maintenance', 'x'), fc.string({ maxLength: 10 })),
	),
});
const podArb = fc.option(
	fc.record({
		metadata: meta,
		spec: maybe(fc.record({ nodeName: maybe(fc.string({ maxLength: 10 })) })),
		status: maybe(
			fc.record({
				phase: maybe(fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown')),
				conditions: maybe(fc.array(cond, { maxLength: 4 })),
				containerStatuses: maybe(fc.array(containerStatus, { maxLength: 2 })),
			}),
		),
	}),
	{ nil: null },
);
const pvcArb = fc.option(
	fc.record({
		metadata: meta,
		status: maybe(fc.record({ phase: maybe(fc.constantFrom('Pending', 'Bound', 'Lost')) })),
	}),
	{ nil: null },
);
const leaseArb = fc.option(
	fc.record({
		metadata: fc.record({ name: fc.constant('corral-vdi-ct-desk-1') }),
		spec: maybe(
			fc.record({
				holderIdentity: maybe(
					fc.oneof(fc.string({ maxLength: 12 }), fc.constant('corral-vdi/reconciler')),
				),
				leaseDurationSeconds: maybe(fc.integer({ min: -10, max: 7200 })),
				acquireTime: maybe(
					fc.oneof(fc.constant('2026-11-29T09:30:00.000000Z'), fc.string({ maxLength: 10 })),
				),
			}),
		),
	}),
	{ nil: null },
);

describe('member state over arbitrary objects', () => {
	it('always yields one of the seven states and a consistent free flag', () => {
		fc.assert(
			fc.property(
				podArb,
				pvcArb,
				leaseArb,
				fc.integer({ min: 0, max: 5 }),
				fc.integer({ min: 1, max: 6 }),
				(pod, pvc, lease, size, index) => {
					const { state, message } = memberState(pod, pvc);
					expect(MEMBER_STATES).toContain(state);
					expect(typeof message).toBe('string');
					const v = memberView(
						{ name: `desk-${index}`, index, pod, pvc, lease },
						{ size, sourceHash: 'h' },
						NOW,
					);
					if (pod?.metadata.deletionTimestamp || pvc?.metadata.deletionTimestamp)
						expect(v.state).toBe('Terminating');
					if (v.free) {
						expect(lease).toBeNull();
						expect(index).toBeLessThanOrEqual(size);
						expect(v.drifted).toBe(false);
						expect(v.maintenance).toBe(false);
						expect(['Ready', 'Starting', 'Stopped']).toContain(v.state);
					}
					if (lease) expect(v.free).toBe(false);
				},
			),
			{ numRuns: 3000 },
		);
	});
});

describe('sanitize over arbitrary strings', () => {
	it('never lets a control or escape byte through', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
				expect(sanitize(s)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
			}),
			{ numRuns: 3000 },
		);
	});
});
