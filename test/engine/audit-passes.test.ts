/**
 * Other reconcilers' passes rebuilt from their audit Events (issue 26): grouped by pass id,
 * or for older Events by reconciler and time, in the trace stream's types, marked as seen
 * through Events; forged and hostile Events neither break it nor get past its bounds. And
 * on the simulated cluster: a reconcile's Events name its pass, which its plan names too.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	membersOfTarget,
	otherPasses,
	PASS_SPAN_MAX_MS,
	type SeenPass,
} from '../../source/engine/audit-passes.js';
import { apply, readAudit, writeDefinition } from '../../source/engine/index.js';
import { memberRanges } from '../../source/engine/kube-event.js';
import { reconcile } from '../../source/engine/reconcile.js';
import type { TraceEvent } from '../../source/engine/reconcile-plan.js';
import {
	AUDIT_ANNOTATION,
	type AuditEntry,
	auditEntry,
	parseAuditAnnotation,
} from '../../source/pool/audit.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitReady } from './fixtures.js';

const T = Date.parse('2026-12-02T12:00:00Z');
let seq = 0;

/** An audit line as the console reads one: a raw Event through auditEntry. */
function line(
	record: Record<string, unknown>,
	at: number,
	extra: { instance?: string; created?: number } = {},
): AuditEntry {
	const e = auditEntry(
		{
			metadata: {
				name: `ev-${seq++}`,
				namespace: 'corral-vms',
				creationTimestamp: new Date(extra.created ?? at).toISOString(),
				annotations: { [AUDIT_ANNOTATION]: JSON.stringify({ v: 1, pool: 'desk', ...record }) },
			},
			lastTimestamp: new Date(at).toISOString(),
			reportingInstance: extra.instance ?? 'host-a',
		},
		T + 3_600_000,
	);
	if (!e) throw new Error('not an audit line');
	return e;
}

const steps = (p: SeenPass) => {
	const plan = p.events[0];
	if (plan?.type !== 'plan') throw new Error('no plan first');
	return plan.steps.flatMap((s) => s.members.map((m) => `${s.kind} ${m.member}`));
};

const PASS_A = 'a'.repeat(16);
const PASS_B = 'b'.repeat(16);

describe('other passes from Events', () => {
	it('groups acts by pass id, in the trace types, seen through Events', () => {
		const lines = [
			line(
				{
					action: 'replace',
					member: 'desk-3',
					actor: 'ctl',
					pass: PASS_A,
					detail: 'drifted: image :1 -> :2',
				},
				T,
			),
			line({ action: 'delete', member: 'desk-6', actor: 'ctl', pass: PASS_A }, T + 1000),
			line(
				{ action: 'create', target: 'desk-1..desk-2 (2 members)', actor: 'ctl', pass: PASS_A },
				T + 1500,
			),
			line(
				{
					action: 'reconcile-failed',
					member: 'desk-4',
					actor: 'ctl',
					pass: PASS_A,
					detail: 'start: forbidden',
				},
				T + 2000,
			),
			// the same reconciler's next pass, a second later
			line({ action: 'replace', member: 'desk-3', actor: 'ctl', pass: PASS_B }, T + 3000),
			// not a reconciler's act
			line({ action: 'claim', member: 'desk-5', actor: 'bob', holder: 'bob' }, T + 1200),
			// another pool
			line(
				{ action: 'delete', member: 'lab-1', pool: 'lab', actor: 'ctl', pass: PASS_A },
				T + 1100,
			),
		];
		const passes = otherPasses(lines, 'desk');
		expect(passes.map((p) => [p.pass, p.start, p.end])).toEqual([
			[PASS_B, T + 3000, T + 3000],
			[PASS_A, T, T + 2000],
		]);
		const a = passes[1]!;
		expect(a).toMatchObject({
			seen: 'through-events',
			namespace: 'corral-vms',
			reconciler: { actor: 'ctl', instance: 'host-a' },
			suspect: '',
		});
		expect(steps(a)).toEqual([
			'create desk-1',
			'create desk-2',
			'start desk-4',
			'replace desk-3',
			'delete desk-6',
		]);
		expect(a.events.every((e) => e.seen === 'through-events')).toBe(true);
		expect(a.events.map((e) => e.type)).toEqual([
			'plan',
			'step-end',
			'step-end',
			'step-end',
			'step-end',
			'step-end',
			'done',
		]);
		const failed = a.events.find((e) => e.type === 'step-end' && e.result === 'failed');
		expect(failed).toMatchObject({ member: 'desk-4', step: 'start', error: 'start: forbidden' });
		expect(a.events.at(-1)).toMatchObject({
			type: 'done',
			ok: false,
			done: 4,
			failed: 1,
			ms: 2000,
			errors: ['start: forbidden'],
		});
		const plan = a.events[0] as Extract<TraceEvent, { type: 'plan' }>;
		expect(plan.pass).toBe(PASS_A);
		expect(plan.leftAlone).toEqual([]);
		expect(plan.steps[2]?.members[0]?.reason).toBe('drifted: image :1 -> :2');
	});

	it('skips its own passes, seen directly', () => {
		const lines = [
			line({ action: 'replace', member: 'desk-3', actor: 'me', pass: PASS_A }, T),
			line({ action: 'replace', member: 'desk-4', actor: 'ctl', pass: PASS_B }, T),
		];
		expect(otherPasses(lines, 'desk', { ownPasses: new Set([PASS_A]) }).map((p) => p.pass)).toEqual(
			[PASS_B],
		);
	});

	it('groups older Events (no pass id) by reconciler and time', () => {
		const lines = [
			line({ action: 'replace', member: 'desk-1', actor: 'ctl' }, T),
			line({ action: 'replace', member: 'desk-2', actor: 'ctl' }, T + 10_000),
			// another host: another reconciler
			line({ action: 'replace', member: 'desk-3', actor: 'ctl' }, T + 5_000, {
				instance: 'host-b',
			}),
			// a quiet gap: a new pass
			line({ action: 'delete', member: 'desk-5', actor: 'ctl' }, T + 200_000),
			// desk-5 again soon after: a member comes round again, so a new pass
			line({ action: 'create', member: 'desk-5', actor: 'ctl' }, T + 201_000),
			// a user's own start of their claim is not a reconciler's
			line({ action: 'start', member: 'desk-6', actor: 'bob', holder: 'bob' }, T + 1000),
			// a malformed pass id is dropped: an older-style line
			line({ action: 'replace', member: 'desk-4', actor: 'ctl', pass: 'NOT-HEX!' }, T + 11_000),
		];
		const passes = otherPasses(lines, 'desk');
		expect(passes.map((p) => [p.reconciler.instance, p.pass, steps(p)])).toEqual([
			['host-a', null, ['create desk-5']],
			['host-a', null, ['delete desk-5']],
			['host-a', null, ['replace desk-1', 'replace desk-2', 'replace desk-4']],
			['host-b', null, ['replace desk-3']],
		]);
	});

	it('holds forged and hostile Events to its bounds', () => {
		const evil = '\u001b]52;c;aGk=\u0007\u001b[2J';
		const lines = [
			// names that are not the pool's members count for nothing
			line({ action: 'replace', member: `desk-1${evil}`, actor: 'x', pass: PASS_A }, T),
			line({ action: 'delete', member: 'desk-0', actor: 'x', pass: PASS_A }, T),
			line({ action: 'delete', member: 'desk-99999', actor: 'x', pass: PASS_A }, T),
			line(
				{
					action: 'create',
					target: 'desk-1..desk-999999999 (9 members)',
					actor: 'x',
					pass: PASS_A,
				},
				T,
			),
			// hostile actor, instance and detail: made inert and bounded
			line(
				{
					action: 'replace',
					member: 'desk-2',
					actor: `${evil}${'a'.repeat(3000)}`,
					pass: PASS_B,
					detail: `${evil}${'d'.repeat(5000)}`,
				},
				T,
				{ instance: `${evil}host` },
			),
			// a time beyond its creation: the pass is suspect, its time the creation's
			line({ action: 'replace', member: 'desk-3', actor: 'y', pass: PASS_A }, T + 86_400_000, {
				created: T,
			}),
		];
		const passes = otherPasses(lines, 'desk');
		const all = JSON.stringify(passes);
		expect(all).not.toMatch(/\\u001b|\\u0007/);
		const hostile = passes.find((p) => p.pass === PASS_B)!;
		expect(hostile.reconciler.actor.length).toBeLessThanOrEqual(254);
		expect(hostile.reconciler.instance).not.toMatch(/[\u0000-\u001f]/);
		const plan = hostile.events[0] as Extract<TraceEvent, { type: 'plan' }>;
		expect(plan.steps[2]?.members[0]?.reason.length).toBeLessThanOrEqual(301);
		// the range is bounded to the pool's largest size; the other names are not members:
		// those lines tell nothing, so no pass of theirs is shown
		expect(passes.some((p) => p.reconciler.actor === 'x')).toBe(false);
		const y = passes.find((p) => p.reconciler.actor === 'y')!;
		expect(y.suspect).toMatch(/beyond its creation/);
		expect(y.start).toBe(T);
	});

	it('cuts a forged pass id held too long, and bounds lines and passes', () => {
		const long = [
			line({ action: 'replace', member: 'desk-1', actor: 'f', pass: PASS_A }, T),
			line(
				{ action: 'replace', member: 'desk-2', actor: 'f', pass: PASS_A },
				T + PASS_SPAN_MAX_MS + 1,
			),
		];
		expect(otherPasses(long, 'desk')).toHaveLength(2);
		const flood = Array.from({ length: 6000 }, (_, i) =>
			line(
				{ action: 'replace', member: `desk-${1 + (i % 900)}`, actor: `f${i}`, pass: PASS_A },
				T + i,
			),
		);
		const passes = otherPasses(flood, 'desk', { maxPasses: 1000 });
		expect(passes.length).toBe(1000);
		expect(otherPasses(flood, 'desk')).toHaveLength(20);
		// the newest first
		expect(passes[0]?.reconciler.actor).toBe('f5999');
	});

	it('reads the members back from a bulk Event as memberRanges wrote them', () => {
		const members = [1, 2, 3, 5, 7, 8].map((index) => ({ name: `desk-${index}`, index }));
		expect(membersOfTarget('desk', memberRanges(members))).toEqual(members.map((m) => m.name));
		expect(membersOfTarget('desk', 'desk-3..desk-1 (3 members)')).toEqual([]);
		expect(membersOfTarget('desk', 'lab-1, desk-2')).toEqual(['desk-2']);
	});

	it('reads an older Event without a pass, and drops a malformed one, keeping the line', () => {
		const old = parseAuditAnnotation('{"v":1,"action":"replace","pool":"desk","actor":"c"}');
		expect(old.ok && old.value.pass).toBe('');
		const bad = parseAuditAnnotation(
			`{"v":1,"action":"replace","pool":"desk","actor":"c","pass":"${'f'.repeat(33)}"}`,
		);
		expect(bad.ok && bad.value.pass).toBe('');
		const odd = parseAuditAnnotation(
			'{"v":1,"action":"replace","pool":"desk","actor":"c","pass":{"x":1}}',
		);
		expect(odd.ok).toBe(true);
	});
});

describe('a reconcile pass on the simulated cluster', { timeout: 60_000 }, () => {
	let c: TestCluster;
	beforeAll(async () => {
		c = await startTestCluster();
	});
	afterAll(() => c?.close());

	it("names its pass in its Events and its plan; another reconciler's pass is rebuilt from them", async () => {
		const ops = c.context({ actor: 'ops@example.com' });
		await apply(ops, 'ps', poolSpec({ size: 3 }));
		await waitReady(ops, 'ps', 3);
		await writeDefinition(ops, 'ps', poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' }));
		const traced: TraceEvent[] = [];
		await reconcile(c.context({ actor: 'cli@example.com', onTrace: (e) => traced.push(e) }), 'ps');
		const plan = traced.find((e) => e.type === 'plan');
		if (plan?.type !== 'plan') throw new Error('no plan');
		expect(plan.pass).toMatch(/^[0-9a-f]{16}$/);
		const trail = await readAudit(ops, { pool: 'ps' });
		const mine = trail.entries.filter((e) => e.actor === 'cli@example.com');
		expect(mine.length).toBe(3);
		expect(new Set(mine.map((e) => e.pass))).toEqual(new Set([plan.pass]));
		// apply's own pass is another one
		const applied = trail.entries.filter((e) => e.actor === 'ops@example.com' && e.pass);
		expect(applied.length).toBeGreaterThan(0);
		expect(applied.every((e) => e.pass !== plan.pass)).toBe(true);

		// seen by another console: the pass, rebuilt from the Events, as the plan said
		const [seen] = otherPasses(trail.entries, 'ps').filter(
			(p) => p.reconciler.actor === 'cli@example.com',
		);
		expect(seen?.pass).toBe(plan.pass);
		const direct = plan.steps.flatMap((s) => s.members.map((m) => `${s.kind} ${m.member}`));
		expect(seen ? steps(seen) : []).toEqual(direct);
		expect(direct).toEqual(['replace ps-1', 'replace ps-2', 'delete ps-3']);
		// and the console that ran it skips it: it saw it directly
		expect(
			otherPasses(trail.entries, 'ps', { ownPasses: new Set([plan.pass!]) }).some(
				(p) => p.pass === plan.pass,
			),
		).toBe(false);
	});
});
