/**
 * Issue 22: what ctpool reads from the cluster is parsed at one boundary into typed, bounded
 * values or a named problem. Findings 2 and 12 (a wrongly shaped status), 8 (a future-dated
 * replace record) and 1 (the audit annotation), and a property test over the three parsers.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	AUDIT_ANNOTATION,
	AUDIT_COUNT_MAX,
	auditEntry,
	parseAuditAnnotation,
} from '../../source/pool/audit.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../source/pool/lease.js';
import { memberView } from '../../source/pool/member-state.js';
import { REPLACED_ANNOTATION } from '../../source/pool/names.js';
import {
	parseReplaceRecord,
	readReplaceRecord,
	recordedStorm,
	replaceHeldUntil,
} from '../../source/pool/replace-backoff.js';
import { buildStatus, parseStatus, readStatus } from '../../source/pool/status.js';
import { HASH, NOW, pod, pvc } from './fixtures.js';

const status = (over: Record<string, unknown>) =>
	JSON.stringify({
		observedAt: '2026-11-29T10:00:00Z',
		reconciler: 'corral-vdi/reconciler',
		desired: 1,
		observed: 1,
		ready: 1,
		claimed: 0,
		free: 1,
		unschedulable: 0,
		exhausted: false,
		members: [],
		errors: [],
		...over,
	});

describe('a wrongly shaped recorded status (findings 2 and 12)', () => {
	it('"errors":"boom" is a named problem, not a string the storm check calls find on', () => {
		const text = status({ errors: 'boom' });
		expect(() => recordedStorm(parseStatus(text)?.errors, 'desk')).not.toThrow();
		expect(parseStatus(text)).toBeNull();
		expect(readStatus(text).problem).toBe('status: errors is not a list');
	});

	it('"errors":5, a member of the wrong shape, an infinite count: named problems', () => {
		expect(readStatus(status({ errors: 5 }))).toEqual({
			status: null,
			problem: 'status: errors is not a list',
		});
		expect(readStatus(status({ errors: ['ok', 7] })).problem).toBe(
			'status: errors[1] is not a string',
		);
		expect(
			readStatus(status({ members: [{ name: 'desk-1', state: 'Exploded' }] })).problem,
		).toMatch(/^status: members\[0\]\.state is not one of /);
		expect(readStatus(status({ members: ['desk-1'] })).problem).toBe(
			'status: members[0] is not an object',
		);
		expect(readStatus(status({ free: '1' })).problem).toMatch(
			/^status: free is not a whole number/,
		);
		expect(readStatus(status({}).replace('"desired":1', '"desired":1e309')).problem).toMatch(
			/^status: desired/,
		);
		expect(readStatus(status({ rollout: 3 })).problem).toBe('status: rollout is not an object');
		expect(readStatus('[1]').problem).toBe('status: the status is not an object');
		expect(readStatus('{nope').problem).toBe('status: is not JSON');
		expect(readStatus(undefined)).toEqual({ status: null, problem: null });
	});

	it('a well-formed status reads back as written; absent fields read as empty', () => {
		const member = {
			name: 'desk-1',
			index: 1,
			state: 'Ready',
			holder: '',
			claimExpired: false,
			maintenance: false,
			drifted: true,
			aboveSize: false,
			node: 'n',
			message: '',
			drift: 'image: a, pod b',
		};
		const text = status({ members: [member], claimableNow: 1, claimableSoon: 0 });
		expect(readStatus(text)).toEqual({ status: JSON.parse(text), problem: null });
		expect(parseStatus('{"members":[]}')).toMatchObject({ desired: 0, errors: [], members: [] });
	});

	it('a status reconcile built reads back as the same JSON (a reconcile that changes nothing writes nothing)', () => {
		const views = [1, 2].map((i) =>
			memberView(
				{ name: `desk-${i}`, index: i, pod: pod(`desk-${i}`), pvc: pvc(`desk-${i}`), lease: null },
				{ size: 2, sourceHash: HASH },
				NOW,
			),
		);
		const built = buildStatus(2, views, ['one error'], NOW);
		built.rollout = { target: HASH, updated: 1, total: 2 };
		const text = JSON.stringify(built);
		expect(JSON.stringify(parseStatus(text))).toBe(text);
	});
});

describe('a future-dated corral.dev/vdi-replaced (finding 8)', () => {
	const annotations = { [REPLACED_ANNOTATION]: '{"count":1,"at":"2099-01-01T00:00:00Z"}' };

	it('does not hold a failed member back for good', () => {
		const data = pvc('desk-1');
		data.metadata.annotations = { ...annotations };
		const v = memberView(
			{ name: 'desk-1', index: 1, pod: pod('desk-1', { phase: 'Failed' }), pvc: data, lease: null },
			{ size: 1, sourceHash: HASH },
			NOW,
		);
		expect(v.state).toBe('Failed');
		expect(v.replaces).toBe(1);
		expect(replaceHeldUntil(v, NOW)).toBeNull();
	});

	it('keeps a time within the skew allowance, and reads a later one as untrusted', () => {
		const soon = new Date(NOW + CLOCK_SKEW_ALLOWANCE_MS).toISOString();
		expect(
			parseReplaceRecord({ [REPLACED_ANNOTATION]: `{"count":2,"at":"${soon}"}` }, NOW)?.at,
		).toBe(NOW + CLOCK_SKEW_ALLOWANCE_MS);
		expect(parseReplaceRecord(annotations, NOW)?.at).toBe(0);
		expect(readReplaceRecord({ [REPLACED_ANNOTATION]: '{"count":1e309,"at":"x"}' })).toEqual({
			ok: false,
			problem: `${REPLACED_ANNOTATION}: count is not a whole number of at least 1`,
		});
	});
});

describe('the audit annotation (finding 1)', () => {
	it('a count of 1e309 (Infinity) is a named problem, and the Event is not an audit line', () => {
		const text = '{"v":1,"action":"claim-refused","pool":"desk","actor":"x","count":1e309}';
		expect(parseAuditAnnotation(text)).toEqual({
			ok: false,
			problem: `the audit annotation's count is not a whole number 1..${AUDIT_COUNT_MAX}`,
		});
		expect(
			auditEntry({ metadata: { name: 'e', annotations: { [AUDIT_ANNOTATION]: text } } }),
		).toBeNull();
	});

	it('a series count of 1e309 counts as 1, and a 2099 time is clamped to the allowance', () => {
		const e = auditEntry(
			{
				metadata: {
					name: 'e',
					annotations: {
						[AUDIT_ANNOTATION]: '{"action":"claim-refused","pool":"desk","actor":"x"}',
					},
				},
				lastTimestamp: '2099-01-01T00:00:00Z',
				series: { count: Number.POSITIVE_INFINITY },
			},
			NOW,
		);
		expect(e?.count).toBe(1);
		expect(e?.time).toBe(NOW + CLOCK_SKEW_ALLOWANCE_MS);
	});
});

/** Every number in a value is finite. */
function finiteEverywhere(v: unknown): boolean {
	if (typeof v === 'number') return Number.isFinite(v);
	if (Array.isArray(v)) return v.every(finiteEverywhere);
	if (v && typeof v === 'object') return Object.values(v).every(finiteEverywhere);
	return true;
}

/** Arbitrary JSON text: any JSON value, objects shaped like the real ones, and 1e309. */
const jsonText = (shape: Record<string, fc.Arbitrary<unknown>>) =>
	fc.oneof(
		fc.json(),
		fc.jsonValue().map((v) => JSON.stringify(v)),
		fc.record(shape, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
		fc
			.record(shape, { requiredKeys: [] })
			.map((v) => JSON.stringify(v).replace(/:(-?\d+(\.\d+)?)/g, ':1e309')),
		fc.string(),
	);

const anything = fc.oneof(
	fc.jsonValue(),
	fc.double(),
	fc.constantFrom(Number.POSITIVE_INFINITY, -1, 0.5, 2 ** 60),
);

describe('property: arbitrary JSON into the parsers', () => {
	it('parseStatus: never throws; a typed status with finite numbers, or a named problem', () => {
		const memberShape = {
			name: fc.oneof(fc.string(), anything),
			index: anything,
			state: fc.oneof(fc.constantFrom('Ready', 'Failed', 'Exploded'), anything),
			holder: anything,
			claimExpired: anything,
			drifted: anything,
			message: anything,
			drift: anything,
		};
		const shape = {
			observedAt: anything,
			desired: anything,
			free: anything,
			exhausted: anything,
			claimableNow: anything,
			members: fc.oneof(
				fc.array(fc.oneof(fc.record(memberShape, { requiredKeys: [] }), anything)),
				anything,
			),
			errors: fc.oneof(fc.array(fc.oneof(fc.string(), anything)), anything),
			rollout: anything,
		};
		fc.assert(
			fc.property(jsonText(shape), (text) => {
				const r = readStatus(text);
				if (r.status) {
					expect(r.problem).toBeNull();
					expect(finiteEverywhere(r.status)).toBe(true);
					expect(Array.isArray(r.status.members)).toBe(true);
					expect(r.status.errors.every((e) => typeof e === 'string')).toBe(true);
					expect(r.status.members.every((m) => typeof m.name === 'string')).toBe(true);
				} else if (text === '') expect(r.problem).toBeNull();
				else expect(r.problem).toMatch(/^status: /);
			}),
			{ numRuns: 2000 },
		);
	});

	it('parseAuditAnnotation: never throws; a bounded record or a named problem', () => {
		const shape = {
			action: fc.oneof(fc.constantFrom('claim-refused', 'release', 'nuke'), anything),
			pool: anything,
			actor: anything,
			force: anything,
			count: anything,
			detail: anything,
		};
		fc.assert(
			fc.property(jsonText(shape), anything, (text, seriesCount) => {
				const r = parseAuditAnnotation(text);
				if (r.ok) {
					expect(Number.isInteger(r.value.count)).toBe(true);
					expect(r.value.count).toBeGreaterThanOrEqual(1);
					expect(r.value.count).toBeLessThanOrEqual(AUDIT_COUNT_MAX);
					for (const v of Object.values(r.value))
						if (typeof v === 'string') expect(v.length).toBeLessThanOrEqual(2000);
				} else expect(r.problem).toMatch(/^the audit annotation/);
				const e = auditEntry(
					{
						metadata: { name: 'e', annotations: { [AUDIT_ANNOTATION]: text } },
						series: { count: seriesCount as number },
						lastTimestamp: '2099-01-01T00:00:00Z',
					},
					NOW,
				);
				if (e) {
					expect(finiteEverywhere(e)).toBe(true);
					expect(e.count).toBeLessThanOrEqual(AUDIT_COUNT_MAX);
					expect(e.time).toBeLessThanOrEqual(NOW + CLOCK_SKEW_ALLOWANCE_MS);
				}
			}),
			{ numRuns: 2000 },
		);
	});

	it('readReplaceRecord: never throws; a finite record not beyond the allowance, or a problem', () => {
		const shape = {
			count: anything,
			at: fc.oneof(
				fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
				fc.constantFrom('2099-01-01T00:00:00Z', 'yesterday'),
				anything,
			),
		};
		fc.assert(
			fc.property(jsonText(shape), (text) => {
				const r = readReplaceRecord({ [REPLACED_ANNOTATION]: text }, NOW);
				if (r === null) expect(text).toBe('');
				else if (r.ok) {
					expect(finiteEverywhere(r.value)).toBe(true);
					expect(r.value.count).toBeGreaterThanOrEqual(1);
					expect(r.value.at).toBeLessThanOrEqual(NOW + CLOCK_SKEW_ALLOWANCE_MS);
				} else expect(r.problem.startsWith(`${REPLACED_ANNOTATION}: `)).toBe(true);
			}),
			{ numRuns: 2000 },
		);
	});
});
