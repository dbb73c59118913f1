/**
 * The narrated demo's script on the simulated cluster: a presenter sees, in order, a
 * release, a drift rollout (a claimed member left alone, later waves held back), a
 * scale-down and the takeover of a dead reconciler's Lease, each told in plain sentences.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	type DemoScene,
	nextImage,
	runDemoScript,
	startNarration,
} from '../../source/demo/narrated.js';
import { demoSpec } from '../../source/demo/run.js';
import type { EngineEvent } from '../../source/engine/index.js';
import { createEngine, readPool } from '../../source/engine/index.js';
import type { NarrationLine } from '../../source/engine/narration.js';
import { fakePacerClock } from '../../source/engine/pacer.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

describe('the narrated demo script', { timeout: 120_000 }, () => {
	it('plays a release, a drift rollout, a scale-down and a takeover, each told', async () => {
		const engine = createEngine(c.kube, { actor: 'demo-admin', namespace: c.ns });
		const spec = demoSpec(6);
		await engine.apply('desk', spec);
		const lines: NarrationLine[] = [];
		const scenes: DemoScene[] = [];
		let idles = 0;
		/** Members told as drifted by a plan, and whether they still were once it was told. */
		const toldDrifted: Array<[string, boolean]> = [];
		await runDemoScript({
			engine,
			pool: 'desk',
			spec,
			sink: {
				push: (l) => lines.push(l),
				idle: async () => {
					idles++;
					// a plan is told before its pass changes anything
					const last = lines.at(-1);
					if (last?.kind !== 'step' && last?.kind !== 'left-alone') return;
					const snap = await readPool(engine.ctx, 'desk');
					for (const l of lines.slice(lines.findLastIndex((x) => x.kind === 'plan')))
						if (l.kind === 'step' && /drifted \(image/.test(l.text))
							toldDrifted.push([
								l.member ?? '',
								snap.members.some((m) => m.name === l.member && m.drifted && !m.reconciling),
							]);
				},
			},
			pollMs: 50,
			onScene: (s) => scenes.push(s),
		});
		if (process.env.SHOW_NARRATION)
			console.log(lines.map((l) => `${l.kind}: ${l.text}`).join('\n'));
		expect(scenes).toEqual(['release', 'drift', 'scale-down', 'takeover']);
		expect(toldDrifted.map(([m]) => m).sort()).toEqual([
			'desk-2',
			'desk-3',
			'desk-4',
			'desk-5',
			'desk-6',
		]);
		expect(toldDrifted.every(([, still]) => still)).toBe(true);
		expect(lines.some((l) => /dry run/.test(l.text))).toBe(false);
		expect(idles).toBeGreaterThan(8);
		const texts = lines.map((l) => l.text);
		const at = (re: RegExp) => {
			const i = texts.findIndex((t) => re.test(t));
			expect(i, `a line matching ${re}`).toBeGreaterThanOrEqual(0);
			return i;
		};
		const order = [
			at(/^alice@example\.com claims desk-1: /),
			at(/^alice@example\.com is done and releases desk-1: .*clean desktop\.$/),
			at(/^Pool desk is as its definition says/),
			at(
				/^bob@example\.com holds desk-\d\. Now an admin sets the image to ghcr\.io\/example\/desktop:2/,
			),
			at(
				/^desk-\d drifted \(image :1 → :2\) and is unclaimed: the reconciler takes its Lease, so no one can claim it while it is rebuilt/,
			),
			// left alone, lowest index first: bob's desk-1, then the later waves
			at(/^desk-\d needs work but is claimed: a user's Lease means hands off/),
			at(/^desk-\d drifted but waits for a later wave: at most 2 members may be down at once/),
			at(/^bob@example\.com releases desk-\d/),
			at(/^The admin shrinks the pool from 6 to 4/),
			at(/^desk-5 is above the pool's size \(index 5\) and unclaimed/),
			at(/^A reconciler died two minutes ago in the middle of a step on desk-2/),
			at(
				/^desk-2's Lease was left by a reconciler that stopped mid-step, and it has expired: this reconciler takes the Lease over/,
			),
			at(/^That is the story/),
		];
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(lines.every((l) => l.pool === 'desk' && /[.…]$/.test(l.text))).toBe(true);
		// one sentence per step planned and ended: a step's progress is not told
		expect(lines.some((l) => l.kind === 'progress')).toBe(false);
		expect(texts.filter((t) => /^desk-\d is replaced, in /.test(t)).length).toBeGreaterThanOrEqual(
			4,
		);

		// the pool ends as the story says: 4 members, all on :2, all Ready, no Lease left
		const snap = await readPool(engine.ctx, 'desk');
		expect(snap.members.map((m) => [m.name, m.state, m.holder, m.drifted])).toEqual(
			[1, 2, 3, 4].map((i) => [`desk-${i}`, 'Ready', '', false]),
		);
	});

	it('bumps the tag for the drift', () => {
		expect(nextImage('ghcr.io/example/desktop:1')).toBe('ghcr.io/example/desktop:2');
		expect(nextImage('localhost:5000/desk')).toBe('localhost:5000/desk-next');
	});

	it('tells its lines through the pacer: one per interval, none while paused, n for the next', async () => {
		const engine = createEngine(c.kube, { actor: 'demo-admin', namespace: c.ns });
		const spec = demoSpec(4);
		await engine.apply('told', spec);
		const clock = fakePacerClock();
		const told: EngineEvent[] = [];
		const states: Array<{ text: string; paused: boolean }> = [];
		const narration = startNarration({
			engine,
			pool: 'told',
			spec,
			scenes: ['scale-down'],
			pollMs: 50,
			intervalMs: 4000,
			clock,
			tell: (e) => told.push(e),
			onChange: (s) => states.push({ text: s.current?.text ?? '', paused: s.paused }),
		});
		let finished = false;
		void narration.done.then(() => {
			finished = true;
		});
		// the first line comes at once; the next only when the clock says
		await waitFor(() => told.length === 1, 'the first line');
		expect(told[0]).toMatchObject({
			actor: 'narrator',
			action: 'narrate',
			outcome: 'info',
			pool: 'told',
			message: expect.stringMatching(/^The admin shrinks the pool from 4 to 2/),
		});
		narration.pacer.pause();
		await waitFor(() => narration.pacer.state().waiting > 0, 'a line waiting');
		clock.advance(60_000);
		expect(told).toHaveLength(1);
		expect(narration.pacer.next()).toBe(true);
		expect(told).toHaveLength(2);
		// what the console draws: the line being told, and whether the story is paused
		expect(states.at(-1)).toEqual({ text: told[1]?.message, paused: true });
		narration.pacer.resume();
		expect(states.at(-1)?.paused).toBe(false);
		// each poll lets the clock run one interval: one line each, until the script ends
		await waitFor(() => {
			clock.advance(4000);
			return finished;
		}, 'the script told to its end');
		const texts = told.map((e) => e.message);
		expect(texts.at(-1)).toMatch(/^That is the story/);
		expect(texts.some((t) => /^told-3 is above the pool's size/.test(t))).toBe(true);
		await narration.stop();
	});
});
