/**
 * Issue 15 end to end: the built ctpool in a pseudo-terminal against a test cluster (the
 * simulated one, or a namespace of the real control plane);
 * the filter indicator, sorting, marking the expired claims and force-releasing them with one confirmation, and
 * the container log view.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, claim, createEngineContext, readPool } from '../../source/engine/index.js';
import { formatMicroTime, leaseName } from '../../source/pool/index.js';
import { itSim } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import type { TestTerminal } from '../support/terminal.js';
import { waitFor } from '../support/wait.js';
import { consoleTests, quit } from './ctpool-console.js';

const SLOW = 45_000;

const c = consoleTests({ config: { timeScale: 0.2 } });
let pool = 0;

/** A fresh ready pool with claims by the given identities (in member order), ctpool open on it at 80x24. */
async function openOn(
	size: number,
	holders: string[],
): Promise<{ name: string; term: TestTerminal }> {
	pool++;
	const name = `c${pool}`;
	const ctx = createEngineContext(c.kube, { actor: 'test' });
	await apply(ctx, name, poolSpec({ size }));
	// every member Ready first, so the claims land on the members in order
	await waitFor(async () => (await readPool(ctx, name)).members.every((m) => m.state === 'Ready'), {
		what: `pool ${name} ready`,
		timeoutMs: SLOW,
	});
	for (const h of holders) await claim(createEngineContext(c.kube, { actor: h }), name, h);
	const t = c.start({
		args: [name],
		cacheDir: join(c.cluster.dir, 'kube-cache'),
		columns: 80,
		rows: 24,
	});
	await t.waitFor(new RegExp(`${name}-${size}\\s+Ready`), SLOW);
	await t.waitFor('● live', SLOW);
	return { name, term: t };
}

/** The member names in the table's order on screen. */
function order(screen: string, name: string): string[] {
	return [...screen.matchAll(new RegExp(`^(?:[* ] )?(${name}-\\d+) `, 'gm'))].map(
		(m) => m[1] ?? '',
	);
}

/** Makes a member's claim expired (acquired and renewed two hours ago). */
async function expire(member: string): Promise<void> {
	const lease = await c.cluster.api.get('leases', leaseName(member));
	if (!lease) throw new Error(`no Lease for ${member}`);
	const past = formatMicroTime(Date.now() - 2 * 3_600_000);
	await c.cluster.api.update('leases', {
		...lease,
		spec: { ...(lease.spec as object), acquireTime: past, renewTime: past },
	});
}

/**
 * What the log view shows of a fresh member's log: on the simulated cluster its container
 * (`sleep infinity`) has written nothing; the real cluster's kwok nodes serve one fixed log
 * line for every container.
 */
function firstLog(): string {
	return c.cluster.kind === 'real' ? 'desktop ready' : 'no log lines yet';
}

describe('console craft end to end', { timeout: 120_000 }, () => {
	it('a regex filter shows what it hides, ! inverts it, Esc clears it', async () => {
		const { name, term } = await openOn(4, ['amy@example.com']);
		term.write(`/${name}-[12]$\r`);
		let screen = await term.waitFor(`filter ${name}-[12]$: 2 of 4`, SLOW);
		expect(order(screen, name)).toEqual([`${name}-1`, `${name}-2`]);
		term.write('\u001b');
		await term.waitFor((s) => !/^filter /m.test(s) && order(s, name).length === 4, SLOW);
		// the inverse of a regex on the holder: the three unclaimed members
		term.write('/!amy\r');
		screen = await term.waitFor('filter !amy: 3 of 4', SLOW);
		expect(order(screen, name)).toEqual([`${name}-2`, `${name}-3`, `${name}-4`]);
		term.write('\u001b');
		await term.waitFor((s) => !/^filter /m.test(s) && order(s, name).length === 4, SLOW);
		expect(await quit(term)).toBe(0);
	});

	it('o sorts by holder, O reverses, and the sort stays across refreshes', async () => {
		const { name, term } = await openOn(3, ['zoe@example.com', 'amy@example.com']);
		await term.waitFor(new RegExp(`${name}-2\\s+Ready\\s+amy@example\\.com`), SLOW);
		term.write('o');
		await term.waitFor('sort STATE ↑', SLOW);
		term.write('o');
		let screen = await term.waitFor((s) => s.includes('sort HOLDER ↑') && /HOLDER↑/.test(s), SLOW);
		expect(order(screen, name)).toEqual([`${name}-2`, `${name}-1`, `${name}-3`]);
		term.write('O');
		screen = await term.waitFor('sort HOLDER ↓', SLOW);
		expect(order(screen, name)).toEqual([`${name}-1`, `${name}-2`, `${name}-3`]);
		// a claim made elsewhere: the table refreshes in the same order
		await claim(createEngineContext(c.kube, { actor: 'x' }), name, 'bea@example.com');
		screen = await term.waitFor(new RegExp(`${name}-3\\s+Ready\\s+bea@example\\.com`), SLOW);
		expect(order(screen, name)).toEqual([`${name}-1`, `${name}-3`, `${name}-2`]);
		expect(screen).toContain('sort HOLDER ↓');
		expect(await quit(term)).toBe(0);
	});

	it('* marks the expired claims; x releases every mark after one confirmation', async () => {
		const { name, term } = await openOn(3, [
			'zoe@example.com',
			'amy@example.com',
			'bea@example.com',
		]);
		await expire(`${name}-1`);
		await expire(`${name}-3`);
		await term.waitFor((s) => (s.match(/EXPIRED/g) ?? []).length >= 2 && /EXHAUSTED/.test(s), SLOW);
		term.write('*');
		await term.waitFor(/^2 marked/m, SLOW);
		expect(term.screen()).toMatch(new RegExp(`^\\* ${name}-1 `, 'm'));
		expect(term.screen()).toMatch(new RegExp(`^\\* ${name}-3 `, 'm'));
		expect(term.screen()).toMatch(new RegExp(`^ {2}${name}-2 `, 'm'));
		term.write('x');
		const confirm = await term.waitFor('y releases all 2', SLOW);
		expect(confirm).toContain(`Force-release 2 marked members of ${name}?`);
		expect(confirm).toMatch(new RegExp(`^ {2}${name}-1 {2}held by zoe@example\\.com`, 'm'));
		expect(confirm).toMatch(new RegExp(`^ {2}${name}-3 {2}held by bea@example\\.com`, 'm'));
		for (const l of term.lines()) expect(l.length).toBeLessThanOrEqual(80);
		term.write('y');
		await term.waitFor(`force-release: 2 of 2 done (${name}-1, ${name}-3)`, SLOW);
		await term.waitFor(
			(s) =>
				new RegExp(`${name}-1\\s+Ready\\s+-\\s`).test(s) &&
				new RegExp(`${name}-3\\s+Ready\\s+-\\s`).test(s),
			SLOW,
		);
		const screen = term.screen();
		expect(screen).toMatch(new RegExp(`${name}-2\\s+Ready\\s+amy@example\\.com`));
		expect(screen).not.toMatch(/^\d+ marked/m);
		expect(await quit(term)).toBe(0);
	});

	it('L shows the container log, following it; p asks for the previous one; Esc returns', async () => {
		const { name, term } = await openOn(1, []);
		term.write('L');
		await term.waitFor(new RegExp(`log ${name}-1 · following`), SLOW);
		await term.waitFor(firstLog(), SLOW);
		// the container never restarted: its node says there is no previous log
		term.write('p');
		await term.waitFor(/--previous · error: \S/, SLOW);
		term.write('p');
		await term.waitFor(new RegExp(`log ${name}-1 · following`), SLOW);
		term.write('\u001b');
		await term.waitFor(/^NAME\s+STATE/m, SLOW);
		expect(await quit(term)).toBe(0);
	});

	itSim(
		'L follows the container log live, escapes removed; p names the missing previous container',
		"the real cluster's kwok nodes serve one fixed log for every container",
		async () => {
			const { name, term } = await openOn(1, []);
			term.write('L');
			await term.waitFor(new RegExp(`log ${name}-1 · following`), SLOW);
			const pod = (await c.cluster.api.get('pods', `${name}-1`)) as {
				status?: { containerStatuses?: Array<{ containerID?: string }> };
			};
			const id = pod.status?.containerStatuses?.[0]?.containerID ?? '';
			expect(id).not.toBe('');
			c.sim.cluster.controllers.logs.write(id, 'hello from the e2e test \u001b[31mred\u001b[0m');
			const screen = await term.waitFor('hello from the e2e test', SLOW);
			expect(screen).not.toContain('\u001b');
			term.write('p');
			await term.waitFor(/--previous · error: .*previous terminated container/, SLOW);
			term.write('\u001b');
			await term.waitFor(/^NAME\s+STATE/m, SLOW);
			expect(await quit(term)).toBe(0);
		},
	);
});
