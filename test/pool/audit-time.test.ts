/**
 * Properties of the audit's time bound and cap over arbitrary Events: never a throw, a time
 * that is finite, never after the API server's creationTimestamp nor beyond now plus the
 * skew allowance; and a cap that keeps every line whose time was not clamped before any
 * clamped one. Issue 22, finding 9.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	AUDIT_ANNOTATION,
	AUDIT_SKEW_ALLOWANCE_MS,
	type AuditEntry,
	auditEntry,
	capAudit,
	type RawAuditEvent,
} from '../../source/pool/audit.js';
import { leaseWork } from '../../source/pool/lease.js';
import type { LeaseObject } from '../../source/pool/objects.js';

const NOW = Date.parse('2026-12-02T08:00:00Z');

/** A time as an Event may hold it: anything from a valid date to junk. */
const timeText = fc.oneof(
	fc
		.date({ min: new Date(0), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
		.map((d) => d.toISOString()),
	fc.string(),
	fc.constant('2099-01-01T00:00:00Z'),
	fc.constant(undefined),
);

const rawEvent = fc.record({
	name: fc.string({ minLength: 1, maxLength: 12 }),
	created: fc.option(fc.integer({ min: NOW - 7_200_000, max: NOW + 600_000 }), { nil: undefined }),
	last: timeText,
	eventTime: timeText,
	seriesTime: timeText,
});

function toEvent(r: {
	name: string;
	created: number | undefined;
	last: string | undefined;
	eventTime: string | undefined;
	seriesTime: string | undefined;
}): RawAuditEvent {
	return {
		metadata: {
			name: r.name,
			...(r.created !== undefined ? { creationTimestamp: new Date(r.created).toISOString() } : {}),
			annotations: { [AUDIT_ANNOTATION]: '{"v":1,"action":"claim","pool":"p","actor":"a"}' },
		},
		...(r.last !== undefined ? { lastTimestamp: r.last } : {}),
		...(r.eventTime !== undefined ? { eventTime: r.eventTime } : {}),
		...(r.seriesTime !== undefined ? { series: { lastObservedTime: r.seriesTime } } : {}),
	};
}

describe('the time of an audit line', () => {
	it('is finite, never after its creation (to the second) nor beyond now plus the allowance', () => {
		fc.assert(
			fc.property(rawEvent, (r) => {
				const e = auditEntry(toEvent(r), NOW);
				expect(e).not.toBeNull();
				const t = e!.time;
				expect(Number.isFinite(t)).toBe(true);
				expect(t).toBeLessThanOrEqual(NOW + AUDIT_SKEW_ALLOWANCE_MS);
				if (r.created !== undefined)
					expect(t).toBeLessThanOrEqual(Math.floor(r.created / 1000) * 1000 + 999);
			}),
		);
	});
});

describe('the cap', () => {
	it('keeps at most max lines, every unclamped line before any clamped one, and counts the rest', () => {
		fc.assert(
			fc.property(
				fc.array(rawEvent, { maxLength: 60 }),
				fc.integer({ min: 1, max: 40 }),
				(raws, max) => {
					const entries = raws
						.map((r, i) => auditEntry(toEvent({ ...r, name: `${r.name}-${i}` }), NOW))
						.filter((e): e is AuditEntry => e !== null);
					const c = capAudit(entries, max);
					expect(c.kept.length).toBe(Math.min(max, entries.length));
					expect(c.dropped).toBe(entries.length - c.kept.length);
					const honest = entries.filter((e) => !e.clamped).length;
					expect(c.kept.filter((e) => !e.clamped).length).toBe(Math.min(honest, max));
					expect(c.droppedClamped).toBeLessThanOrEqual(c.dropped);
				},
			),
		);
	});
});

describe('the step a reconciler Lease records', () => {
	it('is a known step or null, its host bounded, whatever the annotations hold', () => {
		fc.assert(
			fc.property(
				fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.jsonValue())),
				(annotations) => {
					const w = leaseWork({ metadata: { annotations } } as unknown as LeaseObject);
					expect([null, 'release', 'create', 'start', 'replace', 'delete', 'takeover']).toContain(
						w.step,
					);
					expect(w.host.length).toBeLessThanOrEqual(64);
				},
			),
		);
	});
});
