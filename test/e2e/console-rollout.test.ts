/**
 * A rollout is no outage (issue 24, finding 2), in a real terminal: `ctpool desk --bell` on
 * a pool that rolls in waves (maxUnavailable 1) with two idle desktops shows the image it rolls
 * to (not a source hash) and what the members on the old image wait for, never EXHAUSTED and
 * never a bell while idle desktops wait for their wave; once the last claimable member is
 * taken, EXHAUSTED and one bell.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, reconcile, writeDefinition } from '../../source/engine/index.js';
import { waitReady } from '../engine/fixtures.js';
import { poolSpec } from '../support/pool-spec.js';
import { consoleTests, quit } from './ctpool-console.js';

const c = consoleTests();
const NEW = poolSpec({ size: 4, maxUnavailable: 1, image: 'ghcr.io/example/desktop:2' });
const BEL = '\u0007';

beforeAll(async () => {
	const ctx = c.cluster.context();
	await apply(ctx, 'desk', poolSpec({ size: 4, maxUnavailable: 1 }));
	await waitReady(ctx, 'desk', 4);
	await claim(ctx, 'desk', 'alice@example.com');
	await claim(ctx, 'desk', 'bob@example.com');
}, 60_000);

describe('a rollout in waves in a terminal', { timeout: 90_000 }, () => {
	it('reads as a rollout, not an outage: the image, what the old members wait for, no EXHAUSTED, no bell', async () => {
		const ctx = c.cluster.context();
		const t = c.start({ args: ['desk', '--bell', '-n', c.cluster.ns], columns: 120, rows: 30 });
		await t.waitFor(/claimable now 2 /);
		// the new definition, no reconcile yet: every member is on the old image
		await writeDefinition(ctx, 'desk', NEW);
		const screen = await t.waitFor(/rolling 0\/2 to /);
		expect(screen).toMatch(
			/rolling 0\/2 to ghcr\.io\/example\/desktop:2 · 4 on the old image, replaced after release or in its wave/,
		);
		expect(screen).not.toMatch(/to source [0-9a-f]{8}/);
		expect(screen).toMatch(/claimable now 2 /);
		expect(screen).not.toContain('EXHAUSTED');
		// the rows say it too (the message column)
		expect(screen).toMatch(/^desk-3 .*old image, replaced after/m);
		// the first wave: one member replaced while the other idle one stays claimable
		const r = await reconcile(ctx, 'desk');
		expect(r.heldBack).toBe(1);
		await t.waitFor(/rolling 1\/2 to ghcr\.io\/example\/desktop:2/);
		expect(t.screen()).not.toContain('EXHAUSTED');
		expect(t.output()).not.toContain(BEL);
		// EXHAUSTED means no claimable member: the two idle desktops taken, one bell
		await claim(ctx, 'desk', 'carol@example.com');
		await claim(ctx, 'desk', 'dave@example.com');
		await t.waitFor(() => t.output().includes(BEL), 20_000);
		await t.waitFor(/EXHAUSTED/);
		expect(t.output().split(BEL)).toHaveLength(2);
		expect(await quit(t)).toBe(0);
	});
});
