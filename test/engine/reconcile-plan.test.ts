/**
 * The plan a reconcile traces before it acts (issue 26): the steps with their members and
 * reasons, the members left alone and why (claimed, in maintenance, held back by the
 * rollout), then each step's progress in order, the same for a dry run and the reconcile after.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, setMaintenance, writeDefinition } from '../../source/engine/index.js';
import { reconcile } from '../../source/engine/reconcile.js';
import type { TraceEvent } from '../../source/engine/reconcile-plan.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

const NEW_IMAGE = 'ghcr.io/example/desktop:2';

describe('the reconcile plan', { timeout: 60_000 }, () => {
	it('names the steps and why, the members left alone and why, and each step as it goes', async () => {
		const setup = c.context();
		await apply(setup, 'lp', poolSpec({ size: 4 }));
		await waitReady(setup, 'lp', 4);
		expect((await claim(setup, 'lp', 'bob@example')).member).toBe('lp-1');
		await setMaintenance(setup, 'lp', 'lp-2', true, 'disk check');
		await writeDefinition(setup, 'lp', poolSpec({ size: 4, image: NEW_IMAGE, maxUnavailable: 1 }));

		const dry: TraceEvent[] = [];
		const mark = await c.mark();
		const planned = await reconcile(c.context({ onTrace: (e) => dry.push(e) }), 'lp', {
			dryRun: true,
		});
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		expect(planned.actions).toEqual([]);
		expect(planned.statusWritten).toBe(false);
		const plan = dry[0];
		if (plan?.type !== 'plan') throw new Error('the first event is not the plan');
		expect(plan.steps.map((s) => [s.kind, s.members.map((m) => m.member)])).toEqual([
			['create', []],
			['start', []],
			['replace', ['lp-3']],
			['delete', []],
			['takeover', []],
		]);
		expect(plan.steps[2]?.members[0]?.reason).toMatch(/^drifted: .*desktop:2/);
		expect(plan.leftAlone).toEqual([
			{ member: 'lp-1', reason: 'claimed' },
			{ member: 'lp-2', reason: 'in maintenance' },
			{
				member: 'lp-4',
				reason:
					'held back by the rollout (at most 1 unavailable at once; claimable with the old image)',
			},
		]);
		expect(dry.map((e) => e.type)).toEqual(['plan', 'step-progress', 'done']);

		const real: TraceEvent[] = [];
		const result = await reconcile(c.context({ onTrace: (e) => real.push(e) }), 'lp');
		expect(result.errors).toEqual([]);
		const again = real[0];
		if (again?.type !== 'plan') throw new Error('the first event is not the plan');
		// the same plan; the real pass names its pass id (its Events carry it), the dry run none
		const { pass, ...same } = again;
		expect(pass).toMatch(/^[0-9a-f]{16}$/);
		expect(plan.pass).toBeUndefined();
		expect({ ...same, time: 0, dryRun: true }).toEqual({ ...plan, time: 0 });
		// the replace's story, in order, and its end
		const story = real.flatMap((e) =>
			e.type === 'step-progress' && e.member === 'lp-3' ? [e.progress] : [],
		);
		expect(story).toEqual(['lease-taken', 'deleted', 'created', 'lease-released']);
		const end = real.find((e) => e.type === 'step-end');
		expect(end).toMatchObject({ member: 'lp-3', step: 'replace', result: 'done' });
		expect(real.at(-1)).toMatchObject({ type: 'done', ok: true, done: 1, failed: 0 });
		// times never go back
		const times = real.map((e) => e.time);
		expect([...times].sort((a, b) => a - b)).toEqual(times);
	});
});
