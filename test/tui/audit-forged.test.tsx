/**
 * Issue 22, finding 9: the audit cannot be buried and says it can be forged. An Event's
 * stated time is bounded by the API server's creationTimestamp (a client cannot set it), so
 * `lastTimestamp: 2099-…` neither pins a line on top nor makes "oldest <invalid> ago"; a
 * flood of 5,000 future-dated Events gives way before the real lines when the console's cap
 * is reached, and the screen says how many lines it dropped; the audit screen says that
 * Events are written by their reporters and where the cluster's own audit log is.
 */

import { afterEach, describe, expect, it } from 'vitest';
import {
	AUDIT_ANNOTATION,
	AUDIT_POOL_LABEL,
	type AuditEntry,
	auditEntry,
	capAudit,
	type RawAuditEvent,
} from '../../source/pool/audit.js';
import { AUDIT_LINES_MAX } from '../../source/tui/store/store.js';
import { poolSpec as spec } from '../support/pool-spec.js';
import { member, NOW } from './fixtures.js';
import { lines, storeWith } from './helpers.js';
import { type RenderedConsole, renderConsole } from './render-console.js';

let r: RenderedConsole | null = null;
afterEach(() => {
	r?.unmount();
	r = null;
});

/** An Event as the API server holds it: created at `created`, stating `stated`. */
function event(name: string, created: number, stated: string, actor: string): RawAuditEvent {
	return {
		metadata: {
			name,
			namespace: 'corral',
			creationTimestamp: new Date(created).toISOString(),
			labels: { [AUDIT_POOL_LABEL]: 'desk' },
			annotations: {
				[AUDIT_ANNOTATION]: JSON.stringify({
					v: 1,
					action: 'claim',
					pool: 'desk',
					member: 'desk-1',
					holder: actor,
					actor,
				}),
			},
		},
		type: 'Normal',
		reason: 'Claimed',
		message: `claimed desk-1 for ${actor} by ${actor}`,
		lastTimestamp: stated,
	};
}

function entryOf(e: RawAuditEvent): AuditEntry {
	const out = auditEntry(e, NOW);
	if (!out) throw new Error('not an audit line');
	return out;
}

/** Ten real lines, one a minute, then `forged` lines created just now that say 2099. */
function flood(forged: number): AuditEntry[] {
	const real = Array.from({ length: 10 }, (_, i) =>
		entryOf(
			event(
				`real-${i}`,
				NOW - (i + 1) * 60_000,
				new Date(NOW - (i + 1) * 60_000).toISOString(),
				'alice@example.com',
			),
		),
	);
	const fake = Array.from({ length: forged }, (_, i) =>
		entryOf(event(`fake-${i}`, NOW - 1000, '2099-01-01T00:00:00Z', 'mallory@example.com')),
	);
	return [...fake, ...real];
}

describe('an Event stating a future time', () => {
	it('is shown at its creation, marked clamped', () => {
		const e = entryOf(event('fake', NOW - 1000, '2099-01-01T00:00:00Z', 'mallory@example.com'));
		expect(e.time).toBe(NOW - 1000);
		expect(e.clamped).toBe(true);
	});

	it('within the clock skew of its creation is shown at its creation, not marked', () => {
		const e = entryOf(
			event('skew', NOW - 1000, new Date(NOW + 30_000).toISOString(), 'bob@example.com'),
		);
		expect(e.time).toBe(NOW - 1000);
		expect(e.clamped).toBe(false);
	});

	it('in the past is believed (creation bounds only from above)', () => {
		const e = entryOf(event('old', NOW, new Date(NOW - 600_000).toISOString(), 'bob@example.com'));
		expect(e.time).toBe(NOW - 600_000);
		expect(e.clamped).toBe(false);
	});
});

describe("5,000 future-dated Events and the console's cap", () => {
	it('give way before the real lines, and the drop is counted', () => {
		const capped = capAudit(flood(AUDIT_LINES_MAX), AUDIT_LINES_MAX);
		expect(capped.kept).toHaveLength(AUDIT_LINES_MAX);
		expect(capped.kept.filter((e) => e.name.startsWith('real-'))).toHaveLength(10);
		expect(capped).toMatchObject({ dropped: 10, droppedClamped: 10 });
	});

	it('in the store: the real lines stay, the header says how many were dropped and why', async () => {
		const s = spec({ size: 1 });
		const store = storeWith(member('desk', 1, s, {}), { spec: s });
		store.getState().auditChange({ reset: flood(AUDIT_LINES_MAX) });
		store.getState().setAuditStatus('live');
		const kept = store.getState().audit.entries;
		expect(kept.filter((e) => e.name.startsWith('real-'))).toHaveLength(10);
		expect(store.getState().audit.oldest).toBe(NOW - 10 * 60_000);
		r = await renderConsole(store, { columns: 200, rows: 30 });
		await r.press('e');
		const frame = r.lastFrame();
		expect(frame).toContain('oldest 10m ago');
		expect(frame).not.toContain('invalid');
		expect(frame).toContain('10 lines dropped: 10 with a time beyond their creation');
	});
});

describe('the audit screen', () => {
	it.each([80, 120])(
		'says at %i columns that Events can be forged and where the audit log is',
		async (columns) => {
			const s = spec({ size: 1 });
			const store = storeWith(member('desk', 1, s, {}), { spec: s });
			store.getState().auditChange({ reset: flood(0) });
			store.getState().setAuditStatus('live');
			r = await renderConsole(store, { columns, rows: 24 });
			await r.press('e');
			const text = lines(r.lastFrame()).join(' ').replace(/\s+/g, ' ');
			expect(text).toContain(
				'Events are written by their reporters: anyone who may create events can forge a line.',
			);
			expect(text).toContain(
				"The cluster's own record is the API server's audit log (--audit-log-path).",
			);
		},
	);
});
