import { describe, expect, it } from 'vitest';
import {
	AUDIT_ANNOTATION,
	type AuditEntry,
	auditActionProblem,
	auditEntry,
	auditMatches,
	auditNote,
	normalRecord,
	refusedClaims,
} from '../../source/pool/audit.js';
import { filterAudit, parseAuditFilter } from '../../source/tui/model/audit-filter.js';

const T = Date.parse('2026-11-29T10:00:00Z');

function raw(record: unknown, over: Record<string, unknown> = {}) {
	return {
		metadata: {
			name: 'desk-1-data.1',
			namespace: 'corral',
			annotations: { [AUDIT_ANNOTATION]: JSON.stringify(record) },
		},
		reason: 'Released',
		type: 'Normal',
		message: 'note',
		lastTimestamp: new Date(T).toISOString(),
		reportingInstance: 'host-a',
		...over,
	};
}

describe('the one Event note', () => {
	it('has one shape for every act, with the holder, the acting identity, --force and the identity named', () => {
		expect(
			auditNote({
				action: 'release',
				pool: 'desk',
				member: 'desk-1',
				holder: 'alice',
				actor: 'root@h',
				identity: 'night',
				force: true,
			}),
		).toBe('released desk-1 from alice by root@h (--force, as night)');
		expect(
			auditNote({ action: 'claim', pool: 'desk', member: 'desk-1', holder: 'a', actor: 'b' }),
		).toBe('claimed desk-1 for a by b');
		expect(
			auditNote({
				action: 'maintenance-on',
				pool: 'desk',
				member: 'desk-2',
				actor: 'ops',
				detail: 'disk',
			}),
		).toBe('put in maintenance desk-2 by ops: disk');
		expect(
			auditNote({
				action: 'claim-refused',
				pool: 'desk',
				holder: 'h',
				actor: 'b',
				count: 4,
				detail: 'x',
			}),
		).toBe('refused a claim in pool desk for h by b (4 times): x');
		expect(
			auditNote({ action: 'create', pool: 'd', actor: 'r', detail: 'y'.repeat(2000) }),
		).toHaveLength(1000);
	});

	it('leaves out an identity named that is the holder or the actor', () => {
		expect(
			normalRecord({
				action: 'release',
				pool: 'p',
				member: 'p-1',
				holder: 'u6',
				identity: 'u6',
				actor: 'm',
			}),
		).toEqual({ action: 'release', pool: 'p', member: 'p-1', holder: 'u6', actor: 'm' });
	});
});

describe('reading Events back', () => {
	it('reads ctpool Events, skips others and broken annotations', () => {
		const e = auditEntry(
			raw({
				v: 1,
				action: 'release',
				pool: 'desk',
				member: 'desk-1',
				holder: 'alice',
				actor: 'root',
				force: true,
			}),
		);
		expect(e).toMatchObject({
			time: T,
			namespace: 'corral',
			pool: 'desk',
			member: 'desk-1',
			action: 'release',
			holder: 'alice',
			actor: 'root',
			force: true,
			count: 1,
			instance: 'host-a',
		});
		expect(auditEntry({ reason: 'Scheduled', metadata: { name: 'x' } })).toBeNull();
		expect(auditEntry(raw('not json{', {}))).toBeNull();
		expect(auditEntry({ metadata: { annotations: { [AUDIT_ANNOTATION]: '{' } } })).toBeNull();
		expect(auditEntry(raw({ action: 'nuke', pool: 'desk' }))).toBeNull();
		expect(auditEntry(raw([1, 2]))).toBeNull();
	});

	it('filters exactly on fields, counts refusals over a window, and refuses unknown actions', () => {
		const rel = auditEntry(
			raw({
				action: 'release',
				pool: 'desk',
				member: 'desk-1',
				holder: 'a',
				actor: 'r',
				force: true,
			}),
		)!;
		const ref = auditEntry(
			raw(
				{ action: 'claim-refused', pool: 'desk', holder: 'h', actor: 'b', count: 3 },
				{ reason: 'ClaimRefused' },
			),
		)!;
		expect(auditMatches(rel, { action: 'force-release' })).toBe(true);
		expect(auditMatches(ref, { action: 'force-release' })).toBe(false);
		expect(auditMatches(rel, { identity: 'a' })).toBe(true);
		expect(auditMatches(rel, { identity: 'r' })).toBe(true);
		expect(auditMatches(rel, { identity: 'x' })).toBe(false);
		expect(auditMatches(rel, { since: T + 1 })).toBe(false);
		expect(refusedClaims([rel, ref], 'desk', T + 1000)).toBe(3);
		expect(refusedClaims([rel, ref], 'desk', T + 2 * 3_600_000)).toBe(0);
		expect(auditActionProblem('claim')).toBeNull();
		expect(auditActionProblem('force-release')).toBeNull();
		expect(auditActionProblem('nuke')).toMatch(/^unknown action "nuke"; use one of claim, /);
	});
});

describe('the audit screen filter', () => {
	const entries = [
		{
			pool: 'desk',
			member: 'desk-1',
			actor: 'root',
			holder: 'alice',
			action: 'release',
			force: true,
			time: T,
		},
		{
			pool: 'lab',
			member: 'lab-1',
			actor: 'bob',
			holder: 'bob',
			action: 'claim',
			force: false,
			time: T - 7_200_000,
		},
	].map(
		(o, i) =>
			({
				namespace: 'corral',
				reason: '',
				type: 'Normal',
				identity: '',
				count: 1,
				target: '',
				detail: '',
				message: `${o.action} ${o.member}`,
				name: `e${i}`,
				instance: '',
				...o,
			}) as AuditEntry,
	);

	it('parses fields and words, and says what does not parse', () => {
		expect(parseAuditFilter('pool:desk by:root since:30m Alice')).toEqual({
			fields: { pool: 'desk', identity: 'root' },
			sinceMs: 1_800_000,
			words: ['alice'],
			problem: '',
		});
		expect(parseAuditFilter('since:soon').problem).toBe(
			'since:soon is not a duration (use 30m, 2h)',
		);
	});

	it('narrows to the scope, the fields, the time and the words', () => {
		const names = (scope: object, text: string) =>
			filterAudit(entries, scope, text, T).map((e) => e.name);
		expect(names({}, '')).toEqual(['e0', 'e1']);
		expect(names({ pool: 'lab' }, '')).toEqual(['e1']);
		expect(names({}, 'identity:bob')).toEqual(['e1']);
		expect(names({}, 'action:force-release')).toEqual(['e0']);
		expect(names({}, 'since:1h')).toEqual(['e0']);
		expect(names({}, 'ALICE')).toEqual(['e0']);
		expect(names({}, '--force')).toEqual(['e0']);
		expect(names({ member: 'desk-1' }, 'lab')).toEqual([]);
	});
});
