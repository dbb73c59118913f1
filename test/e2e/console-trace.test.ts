/**
 * The trace view (key t, issue 26) in a real terminal against the simulated cluster: a drift
 * (the pool's image changed) reconciled with `r` shows its plan, the replace step running
 * (held there by a finalizer of the test's on the old pod) and then done, the member the
 * rollout holds back with its reason, and which reconciler the view sees; after a force
 * release (`x`, confirmed), the live loop's next reconcile shows in the trace as a plan with
 * nothing left to do (the release made the member again itself).
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, writeDefinition } from '../../source/engine/index.js';
import { waitReady } from '../engine/fixtures.js';
import { poolSpec } from '../support/pool-spec.js';
import type { TestTerminal } from '../support/terminal.js';
import { consoleTests, holdObject, quit } from './ctpool-console.js';

// a fifth of real pace: a container starts in 0.3 s
const c = consoleTests({ config: { timeScale: 0.2 } });
const SLOW = 45_000;

/** Puts the test's finalizer on an object, or takes it off. */
function hold(resource: string, name: string, add: boolean): Promise<void> {
	return holdObject(c.cluster.api, resource, name, add, SLOW);
}

/** Esc, and waits for the members screen (a key right after a lone Esc would read as Alt-key). */
async function back(t: TestTerminal): Promise<void> {
	t.write('\u001b');
	await t.waitFor((s) => !s.includes('Trace · pool') && /NAME\s+STATE/.test(s), SLOW);
}

beforeAll(async () => {
	const ctx = c.cluster.context();
	await apply(ctx, 'desk', poolSpec({ size: 2, maxUnavailable: 1 }));
	await apply(ctx, 'lab', poolSpec({ size: 2 }));
	await waitReady(ctx, 'desk', 2);
	await waitReady(ctx, 'lab', 2);
}, 60_000);

describe('the trace view in a terminal', { timeout: 120_000 }, () => {
	it('follows a drift rollout: the plan, the replace step running then done, the member held back', async () => {
		const ctx = c.cluster.context();
		const t = c.start({ args: ['desk', '-n', c.cluster.ns], columns: 120, rows: 40 });
		await t.waitFor(/desk-2\s+Ready/, SLOW);
		await t.waitFor('● live', SLOW);
		// the old pods stay Terminating until the test lets go: the replace step stays running
		await hold('pods', 'desk-1', true);
		await hold('pods', 'desk-2', true);
		await writeDefinition(
			ctx,
			'desk',
			poolSpec({ size: 2, maxUnavailable: 1, image: 'ghcr.io/example/desktop:2' }),
		);
		await t.waitFor(/rolling 0\/\d to ghcr\.io\/example\/desktop:2/, SLOW);
		t.write('r');
		t.write('t');
		const running = await t.waitFor(/running\s+replace\s+desk-\d: drifted/, SLOW);
		expect(running).toContain("Seen directly: this console's own reconciles");
		expect(running.replace(/\s+/g, ' ')).toMatch(/seen through their Events/);
		expect(running).toMatch(/desk-\d: held back by the rollout/);
		expect(running).toMatch(/plan made \d\d:\d\d:\d\d .* · running/);
		const member = /running\s+replace\s+(desk-\d)/.exec(running)?.[1] ?? '';
		await hold('pods', 'desk-1', false);
		await hold('pods', 'desk-2', false);
		const done = await t.waitFor(new RegExp(`done\\s+replace\\s+${member}`), SLOW);
		await t.waitFor(/finished in \d+\.\d\d s: 1 done, 0 failed/, SLOW);
		expect(done).toMatch(/done in \d+\.\d\d s/);
		// the events as reconcile -v prints them
		expect(t.screen()).toMatch(new RegExp(`\\+\\d+\\.\\d\\d s ${member} replace: done in`));
		// back on the members table the member the plan touched is marked
		await back(t);
		await t.waitFor(new RegExp(`^» ${member}\\s`, 'm'), SLOW);
		expect(await quit(t)).toBe(0);
	});

	it('after a force release, the live loop reconciles and the trace shows its plan', async () => {
		const ctx = c.cluster.context();
		const { member } = await claim(ctx, 'lab', 'zoe@example.com');
		const t = c.start({ args: ['lab', '-n', c.cluster.ns], columns: 120, rows: 40 });
		await t.waitFor(new RegExp(`${member}\\s+Ready\\s+zoe@example\\.com`), SLOW);
		t.write('t');
		await t.waitFor(/No plan yet: this console has not reconciled pool lab/, SLOW);
		await back(t);
		t.write('/');
		for (const ch of member) t.write(ch);
		t.write('\r');
		await t.waitFor(/filter .*: 1 of 2/, SLOW);
		t.write('x');
		await t.waitFor(`Release ${member} (held by zoe@example.com) with --force?`, SLOW);
		t.write('y');
		await t.waitFor(`released ${member} (claimed by zoe@example.com)`, SLOW);
		t.write('a');
		await t.waitFor(/live reconcile loop on for lab/, SLOW);
		t.write('t');
		const screen = await t.waitFor(/finished in \d+\.\d\d s: 0 done, 0 failed, 0 skipped/, SLOW);
		expect(screen).toMatch(/Trace · pool lab/);
		expect(screen).toContain('none: every member is in line');
		expect(screen).toMatch(/live loop: on/);
		expect(await quit(t)).toBe(0);
	});
});
