/**
 * `ctpool reconcile -v / --plan / --dry-run / -o json` (issue 26): the plan as data, each step
 * as it happens, a dry run that writes nothing and whose plan is what the next reconcile does.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, writeDefinition } from '../../source/engine/index.js';
import type { TraceEvent } from '../../source/engine/reconcile-plan.js';
import { roleRules } from '../../source/pool/permissions.js';
import { waitReady } from '../engine/fixtures.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { ctpool } from './capture.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** Every stdout line parsed as JSON (each must be one object). */
function jsonLines(stdout: string): TraceEvent[] {
	const lines = stdout.split('\n').filter((l) => l.length > 0);
	return lines.map((l) => JSON.parse(l) as TraceEvent);
}

/** The plan's steps as `kind member` pairs, sorted. */
function plannedPairs(events: TraceEvent[]): string[] {
	const plan = events.find((e) => e.type === 'plan');
	if (plan?.type !== 'plan') throw new Error('no plan event');
	return plan.steps.flatMap((s) => s.members.map((m) => `${s.kind} ${m.member}`)).sort();
}

/** The steps a reconcile took (step-end done), as `kind member` pairs, sorted. */
function donePairs(events: TraceEvent[]): string[] {
	return events
		.flatMap((e) => (e.type === 'step-end' && e.result === 'done' ? [`${e.step} ${e.member}`] : []))
		.sort();
}

describe('ctpool reconcile --dry-run', () => {
	it('writes nothing, and its plan is what the following reconcile does', async () => {
		const ctx = c.context();
		await apply(ctx, 'dry', poolSpec({ size: 3 }));
		// every member Ready: the claim takes the lowest index
		await waitReady(ctx, 'dry', 3);
		expect((await claim(ctx, 'dry', 'alice@example')).member).toBe('dry-1');
		// a new image and a smaller size, written without a reconcile
		await writeDefinition(ctx, 'dry', poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' }));
		const mark = await c.mark();
		const dry = await ctpool(['reconcile', 'dry', '--dry-run', '-o', 'json', ...c.kc]);
		expect(dry.stderr).toBe('');
		expect(dry.code).toBe(0);
		// nothing stored, nothing tried but server-side dry runs (which are no mutation)
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		const events = jsonLines(dry.stdout);
		expect(events[0]?.type).toBe('plan');
		expect(events.at(-1)).toMatchObject({ type: 'done', dryRun: true, ok: true, done: 0 });
		expect(events.some((e) => e.type === 'step-start' || e.type === 'step-end')).toBe(false);
		const plan = events[0];
		if (plan?.type !== 'plan') throw new Error('no plan');
		expect(plan.dryRun).toBe(true);
		// the claimed member (the first free one: dry-1) is left alone; the rest drifted or above size
		expect(plan.leftAlone).toEqual([{ member: 'dry-1', reason: 'claimed' }]);
		const replace = plan.steps.find((s) => s.kind === 'replace')?.members ?? [];
		expect(replace).toEqual([
			{ member: 'dry-2', reason: expect.stringMatching(/^drifted: .*image/) },
		]);
		expect(plannedPairs(events)).toEqual(['delete dry-3', 'replace dry-2']);

		const real = await ctpool(['reconcile', 'dry', '-o', 'json', ...c.kc]);
		expect(real.code).toBe(0);
		const done = jsonLines(real.stdout);
		expect(plannedPairs(done)).toEqual(plannedPairs(events));
		expect(donePairs(done)).toEqual(plannedPairs(events));
		expect(done.at(-1)).toMatchObject({
			type: 'done',
			dryRun: false,
			ok: true,
			done: 2,
			failed: 0,
		});
	});

	it('of a new pool: the Lease and PVC creates pass a server-side dry run, nothing is stored', async () => {
		await writeDefinition(c.context(), 'fresh', poolSpec({ size: 2 }));
		const mark = await c.mark();
		const dry = await ctpool(['reconcile', 'fresh', '--dry-run', '-o', 'json', ...c.kc]);
		expect(dry.code).toBe(0);
		// a server-side dry run is no mutation (the audit has the request, nothing stored)
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		const events = jsonLines(dry.stdout);
		expect(plannedPairs(events)).toEqual(['create fresh-1', 'create fresh-2']);
		const progress = events.flatMap((e) => (e.type === 'step-progress' ? [e.detail] : []));
		expect(progress).toEqual([
			'the create of its Lease as corral-vdi/reconciler passes a server-side dry run',
			'the create of its PVC from ghcr.io/example/desktop:1 passes a server-side dry run',
		]);
		expect(
			await c.api.list('persistentvolumeclaims', { labelSelector: 'corral.dev/vdi-ct-pool=fresh' }),
		).toEqual([]);
	});

	it('says so and exits 2 for flags that do not go together, before any write', async () => {
		const mark = await c.mark();
		const bad = await ctpool(['reconcile', 'dry', '--dry-run', '-o', 'yaml', ...c.kc]);
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain('use text or json');
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		const watch = await ctpool(['reconcile', 'dry', '-v', '--watch', ...c.kc]);
		expect(watch.code).toBe(2);
		expect(watch.stderr).toContain('only go with a one-shot reconcile');
		const noWait = await ctpool(['reconcile', 'dry', '--dry-run', '--no-wait', ...c.kc]);
		expect(noWait.code).toBe(2);
		expect(noWait.stderr).toContain('--no-wait does not go with --dry-run');
		// a dry run changes nothing: it goes with --read-only; a reconcile does not
		const readOnly = await ctpool(['reconcile', 'dry', '--dry-run', '--read-only', ...c.kc]);
		expect(readOnly.stderr).toBe('');
		expect(readOnly.code).toBe(0);
		expect(readOnly.stdout).toContain('(dry run: nothing is changed)');
		expect((await ctpool(['reconcile', 'dry', '-v', '--read-only', ...c.kc])).code).toBe(2);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});
});

describe('ctpool reconcile --dry-run without the right to take Leases', () => {
	it('exits 1 naming the right missing, and writes nothing', async () => {
		await writeDefinition(c.context(), 'nolease', poolSpec({ size: 1 }));
		const rules = roleRules()
			.flatMap((p) => p.rules)
			.map((r) =>
				r.resources.includes('leases') ? { ...r, verbs: r.verbs.filter((v) => v !== 'create') } : r,
			);
		const narrow = ['--kubeconfig', await c.grant('no-lease-create', rules)];
		await waitFor(
			async () => (await ctpool(['status', 'nolease', ...narrow])).code === 0,
			'the new identity reads the pool',
		);
		const mark = await c.mark();
		const r = await ctpool(['reconcile', 'nolease', '--dry-run', ...narrow]);
		expect(r.code).toBe(1);
		// the access check before any write says it, as for a reconcile
		expect(r.stderr).toContain(
			'ctpool: reconcile refused before any change: forbidden: cannot create leases',
		);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});
});

describe('ctpool reconcile -v', () => {
	it('prints the plan, then each step with its time since the plan, then the result', async () => {
		const ctx = c.context();
		await writeDefinition(ctx, 'verb', poolSpec({ size: 2 }));
		const out = await ctpool(['reconcile', 'verb', '-v', ...c.kc]);
		expect(out.code).toBe(0);
		const lines = out.stdout.split('\n');
		expect(lines.slice(0, 3)).toEqual([
			'plan for pool verb:',
			'  create   verb-1: missing',
			'  create   verb-2: missing',
		]);
		for (const m of ['verb-1', 'verb-2']) {
			const mine = lines.filter((l) => l.includes(` ${m} create: `));
			expect(mine.map((l) => l.replace(/^\+\d+\.\d\d s /, ''))).toEqual([
				`${m} create: started`,
				`${m} create: Lease taken as corral-vdi/reconciler`,
				`${m} create: PVC and pod created from ghcr.io/example/desktop:1`,
				`${m} create: Lease released`,
				expect.stringMatching(new RegExp(`^${m} create: done in \\d+\\.\\d\\d s$`)),
			]);
		}
		expect(out.stdout).toMatch(
			/\n\+\d+\.\d\d s reconcile of pool verb done in \d+\.\d\d s: 2 done, 0 failed, 0 skipped; status recorded\n/,
		);
		// the result lines as without -v
		expect(out.stdout).toContain('verb-1 created\n');
		// a second pass: nothing to do
		const again = await ctpool(['reconcile', 'verb', '--plan', ...c.kc]);
		expect(again.stdout).toContain('plan for pool verb:\n  no step: every member is in line\n');
	});

	it('-o json with --all: one object per line, each naming its namespace and pool', async () => {
		const out = await ctpool(['reconcile', '--all', '-o', 'json', ...c.kc]);
		expect(out.code).toBe(0);
		const events = jsonLines(out.stdout) as Array<TraceEvent & { namespace: string }>;
		const plans = events.filter((e) => e.type === 'plan').map((e) => e.pool);
		expect(plans).toEqual(expect.arrayContaining(['dry', 'verb']));
		expect(events.every((e) => e.namespace === c.ns && typeof e.time === 'number')).toBe(true);
		expect(events.filter((e) => e.type === 'done')).toHaveLength(plans.length);
	});
});
