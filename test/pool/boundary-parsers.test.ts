/**
 * Issue 22, the rest of the one validated boundary: the `corral.ct/spec` and
 * `corral.dev/vdi-maintenance` annotations, a Lease's fields, and the shape of every watched
 * or listed object are each read by one parse step that returns a typed, bounded value or a
 * named problem and never throws; and a property test throws arbitrary JSON at each.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CT_CPU_MAX, CT_IMAGE_MAX, parseCtSpec, readCtSpec } from '../../source/pool/ct-spec.js';
import {
	CLOCK_SKEW_ALLOWANCE_MS,
	HOLDER_MAX,
	LEASE_DURATION_MAX,
	leaseExpired,
	leaseExpiry,
	leaseHolder,
	readLease,
} from '../../source/pool/lease.js';
import { MAINTENANCE_REASON_MAX, readMaintenance } from '../../source/pool/maintenance.js';
import { memberView } from '../../source/pool/member-state.js';
import { CT_SPEC_ANNOTATION, MAINTENANCE_ANNOTATION } from '../../source/pool/names.js';
import { type ObjectKind, readObject } from '../../source/pool/object-shape.js';
import type { LeaseObject } from '../../source/pool/objects.js';
import { HASH, NOW, pod, pvc } from './fixtures.js';

/** Every number in a value is finite. */
function finiteEverywhere(v: unknown): boolean {
	if (typeof v === 'number') return Number.isFinite(v);
	if (Array.isArray(v)) return v.every(finiteEverywhere);
	if (v && typeof v === 'object') return Object.values(v).every(finiteEverywhere);
	return true;
}

const anything = fc.oneof(
	fc.jsonValue(),
	fc.double(),
	fc.string(),
	fc.constantFrom(Number.POSITIVE_INFINITY, Number.NaN, -1, 0, 0.5, 2 ** 60, -0),
);

/** Arbitrary JSON text, objects shaped like the real ones among it. */
const jsonText = (shape: Record<string, fc.Arbitrary<unknown>>) =>
	fc.oneof(
		fc.json(),
		fc.string(),
		fc.record(shape, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
		fc
			.record(shape, { requiredKeys: [] })
			.map((v) => JSON.stringify(v).replace(/:(-?\d+(\.\d+)?)/g, ':1e309')),
	);

describe('the corral.ct/spec annotation', () => {
	it('names what is wrong, and bounds cores, image and text', () => {
		const problem = (text: string) => {
			const r = readCtSpec(text);
			return r && !r.ok ? r.problem : null;
		};
		expect(readCtSpec(undefined)).toBeNull();
		expect(problem('{nope')).toBe(`${CT_SPEC_ANNOTATION}: is not JSON`);
		expect(problem('[1]')).toBe(`${CT_SPEC_ANNOTATION}: is not a JSON object`);
		expect(problem('{"cpu":1}')).toBe(`${CT_SPEC_ANNOTATION}: image is missing`);
		expect(problem('{"image":"a","cpu":1e309}')).toBe(
			`${CT_SPEC_ANNOTATION}: cpu is not whole cores 1..${CT_CPU_MAX}`,
		);
		// a safe integer, but far beyond any node: the pod made from it would never schedule
		expect(problem(`{"image":"a","cpu":${2 ** 52}}`)).toMatch(/cpu is not whole cores/);
		expect(problem('{"image":"a","cpu":"9e99"}')).toMatch(/cpu is not a number of cores/);
		expect(problem('{"image":"a","mem":5}')).toBe(
			`${CT_SPEC_ANNOTATION}: mem is not a memory quantity such as 512Mi`,
		);
		expect(problem(`{"image":"${'a'.repeat(CT_IMAGE_MAX + 1)}"}`)).toMatch(/image is longer/);
		expect(problem('{"image":"a","privileged":"yes"}')).toMatch(/privileged is not true or false/);
		expect(problem(`{"image":"a","x":"${'x'.repeat(70_000)}"}`)).toMatch(/is longer than/);
		expect(parseCtSpec('{"image":"a","cpu":2,"mem":"1Gi","privileged":true}')?.ct).toEqual({
			image: 'a',
			cpu: 2,
			mem: '1Gi',
			privileged: true,
			init: false,
		});
	});

	it('property: arbitrary JSON reads as a bounded spec or a named problem, never a throw', () => {
		const shape = {
			image: fc.oneof(fc.constantFrom('ghcr.io/x/desk:1', ''), anything),
			cpu: fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.constantFrom('2', '500m'), anything),
			mem: fc.oneof(fc.constantFrom('1Gi', '0', 'lots'), anything),
			memory: anything,
			privileged: anything,
			init: anything,
			disk: anything,
			storageClass: anything,
		};
		fc.assert(
			fc.property(jsonText(shape), (text) => {
				const r = readCtSpec(text);
				if (r === null) {
					expect(text).toBe('');
					return;
				}
				if (!r.ok) {
					expect(r.problem.startsWith(`${CT_SPEC_ANNOTATION}: `)).toBe(true);
					return;
				}
				expect(finiteEverywhere(r.value)).toBe(true);
				expect(Number.isInteger(r.value.ct.cpu)).toBe(true);
				expect(r.value.ct.cpu).toBeGreaterThanOrEqual(1);
				expect(r.value.ct.cpu).toBeLessThanOrEqual(CT_CPU_MAX);
				expect(r.value.ct.image.length).toBeLessThanOrEqual(CT_IMAGE_MAX);
				expect(typeof r.value.ct.mem).toBe('string');
				expect(typeof r.value.ct.privileged).toBe('boolean');
			}),
			{ numRuns: 2000 },
		);
	});
});

describe('the corral.dev/vdi-maintenance annotation', () => {
	it('is on when present whatever it holds, with a bounded reason', () => {
		expect(readMaintenance({})).toEqual({ on: false, reason: '' });
		expect(readMaintenance({ [MAINTENANCE_ANNOTATION]: '' })).toEqual({ on: true, reason: '' });
		expect(readMaintenance({ [MAINTENANCE_ANNOTATION]: 5 })).toEqual({ on: true, reason: '' });
		const long = readMaintenance({ [MAINTENANCE_ANNOTATION]: 'r'.repeat(1_000_000) });
		expect(long.on).toBe(true);
		expect(long.reason.length).toBe(MAINTENANCE_REASON_MAX + 1);
		// the member view takes the parsed reason: a 1 MB reason does not reach the rows whole
		const data = pvc('desk-1');
		data.metadata.annotations = { [MAINTENANCE_ANNOTATION]: 'r'.repeat(1_000_000) };
		const v = memberView(
			{ name: 'desk-1', index: 1, pod: pod('desk-1'), pvc: data, lease: null },
			{ size: 1, sourceHash: HASH },
			NOW,
		);
		expect(v.maintenance).toBe(true);
		expect(v.maintenanceReason.length).toBeLessThanOrEqual(MAINTENANCE_REASON_MAX + 1);
	});

	it('property: any annotations value reads as on/off and a bounded reason', () => {
		fc.assert(
			fc.property(
				fc.oneof(anything, fc.dictionary(fc.constantFrom(MAINTENANCE_ANNOTATION, 'x'), anything)),
				(annotations) => {
					const m = readMaintenance(annotations);
					expect(typeof m.on).toBe('boolean');
					expect(typeof m.reason).toBe('string');
					expect(m.reason.length).toBeLessThanOrEqual(MAINTENANCE_REASON_MAX + 1);
				},
			),
			{ numRuns: 1000 },
		);
	});
});

const leaseWith = (spec: Record<string, unknown>): LeaseObject =>
	({ metadata: { name: 'corral-vdi-ct-desk-1' }, spec }) as unknown as LeaseObject;

describe("a Lease's fields", () => {
	const hourAgo = new Date(NOW - 3_600_000).toISOString();

	it('an infinite or fractional duration is no duration: the Lease counts as expired, not as held for good', () => {
		for (const d of [Number.POSITIVE_INFINITY, Number.NaN, 0.5, -60, '3600'])
			expect(leaseExpired(leaseWith({ renewTime: hourAgo, leaseDurationSeconds: d }), NOW)).toBe(
				true,
			);
		expect(leaseExpiry(leaseWith({ renewTime: hourAgo, leaseDurationSeconds: 7200 }), NOW)).toBe(
			NOW + 3_600_000,
		);
	});

	it('a holder that is not text is no holder; a huge one is cut', () => {
		expect(leaseHolder(leaseWith({ holderIdentity: 5 }))).toBe('');
		expect(leaseHolder(leaseWith({ holderIdentity: { a: 1 } }))).toBe('');
		expect(leaseHolder(leaseWith({ holderIdentity: 'h'.repeat(1_000_000) })).length).toBe(
			HOLDER_MAX + 1,
		);
	});

	it('times beyond the skew allowance are clamped to it', () => {
		const l = readLease(leaseWith({ acquireTime: '2099-01-01T00:00:00Z', renewTime: 7 }), NOW);
		expect(l.acquireTime).toBe(NOW + CLOCK_SKEW_ALLOWANCE_MS);
		expect(l.renewTime).toBeNull();
	});

	it('property: arbitrary specs read as bounded fields, and the member view stays typed', () => {
		const time = fc.oneof(
			fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
			fc.constantFrom('2099-01-01T00:00:00.000000Z', 'soon'),
			anything,
		);
		const spec = fc.record(
			{
				holderIdentity: fc.oneof(fc.constantFrom('alice', 'corral-vdi/reconciler'), anything),
				acquireTime: time,
				renewTime: time,
				leaseDurationSeconds: fc.oneof(fc.integer(), anything),
				leaseTransitions: anything,
			},
			{ requiredKeys: [] },
		);
		fc.assert(
			fc.property(fc.oneof(spec, anything), (s) => {
				const lease = { metadata: { name: 'corral-vdi-ct-desk-1' }, spec: s } as LeaseObject;
				const l = readLease(lease, NOW);
				expect(finiteEverywhere(l)).toBe(true);
				expect(typeof l.holder).toBe('string');
				expect(l.holder.length).toBeLessThanOrEqual(HOLDER_MAX + 1);
				for (const t of [l.acquireTime, l.renewTime])
					if (t !== null) expect(t).toBeLessThanOrEqual(NOW + CLOCK_SKEW_ALLOWANCE_MS);
				if (l.durationSeconds !== null) {
					expect(Number.isInteger(l.durationSeconds)).toBe(true);
					expect(l.durationSeconds).toBeGreaterThanOrEqual(1);
					expect(l.durationSeconds).toBeLessThanOrEqual(LEASE_DURATION_MAX);
				}
				const v = memberView(
					{ name: 'desk-1', index: 1, pod: pod('desk-1'), pvc: pvc('desk-1'), lease },
					{ size: 1, sourceHash: HASH },
					NOW,
				);
				expect(typeof v.holder).toBe('string');
				expect(typeof v.leaseHolder).toBe('string');
				expect(v.free).toBe(false);
				if (v.leaseExpiresAt !== null) expect(Number.isFinite(v.leaseExpiresAt)).toBe(true);
			}),
			{ numRuns: 2000 },
		);
	});
});

describe('the shape of a watched or listed object', () => {
	it('names the object and the field of the wrong shape', () => {
		const bad = pod('desk-1');
		(bad.status as Record<string, unknown>).conditions = 'boom';
		expect(readObject('pods', bad)).toEqual({
			ok: false,
			problem: 'Pod desk-1: status.conditions is not a list',
		});
		expect(readObject('leases', { metadata: { name: 'l' }, spec: { holderIdentity: 5 } })).toEqual({
			ok: false,
			problem: 'Lease l: spec.holderIdentity is not text',
		});
		expect(readObject('configmaps', { metadata: { name: 'c' }, data: { spec: 1 } })).toEqual({
			ok: false,
			problem: 'ConfigMap c: data["spec"] is not text',
		});
		expect(readObject('persistentvolumeclaims', 'x')).toEqual({
			ok: false,
			problem: 'PersistentVolumeClaim ?: the object is not an object',
		});
		// a node for the Unschedulable hint: conditions that are not a list would throw in it
		expect(
			readObject('nodes', { metadata: { name: 'n1' }, status: { conditions: { Ready: 1 } } }),
		).toEqual({ ok: false, problem: 'Node n1: status.conditions is not a list' });
		const good = pod('desk-1');
		expect(readObject('pods', good)).toEqual({ ok: true, value: good });
	});

	it('property: any value reads as the object itself or a problem naming its kind', () => {
		const meta = fc.record(
			{
				name: fc.oneof(fc.constantFrom('desk-1', 'desk-1-data'), anything),
				namespace: anything,
				labels: fc.oneof(fc.dictionary(fc.string(), fc.string()), anything),
				annotations: fc.oneof(fc.dictionary(fc.string(), anything), anything),
				creationTimestamp: anything,
			},
			{ requiredKeys: [] },
		);
		const object = fc.oneof(
			anything,
			fc.record({ metadata: meta, spec: anything, status: anything, data: anything }),
			fc.record({
				metadata: meta,
				status: fc.record(
					{ phase: anything, conditions: anything, containerStatuses: anything },
					{ requiredKeys: [] },
				),
				spec: fc.record({ containers: anything, holderIdentity: anything }, { requiredKeys: [] }),
			}),
		);
		const names: Record<ObjectKind, string> = {
			pods: 'Pod',
			persistentvolumeclaims: 'PersistentVolumeClaim',
			leases: 'Lease',
			configmaps: 'ConfigMap',
			nodes: 'Node',
		};
		fc.assert(
			fc.property(
				fc.constantFrom<ObjectKind>(
					'pods',
					'persistentvolumeclaims',
					'leases',
					'configmaps',
					'nodes',
				),
				object,
				(kind, o) => {
					const r = readObject(kind, o);
					if (r.ok) expect(r.value).toBe(o);
					else {
						expect(r.problem.startsWith(`${names[kind]} `)).toBe(true);
						expect(r.problem.length).toBeLessThan(900);
					}
				},
			),
			{ numRuns: 3000 },
		);
	});
});
