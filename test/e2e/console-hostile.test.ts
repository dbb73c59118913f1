/**
 * Issue 12, findings 3 and 5, with the built binary in a pseudo-terminal: quitting the
 * console (q, SIGTERM, SIGHUP) during a release finishes the release first; a second q
 * abandons it, leaving the member to the next reconcile at once; pasted escape sequences in
 * the filter and the claim prompt never end the console.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
	apply,
	claim,
	createEngineContext,
	readPool,
	reconcile,
} from '../../source/engine/index.js';
import { leaseName } from '../../source/pool/index.js';
import { poolSpec } from '../support/pool-spec.js';
import type { TestTerminal } from '../support/terminal.js';
import { waitFor } from '../support/wait.js';
import { consoleTests, quit } from './ctpool-console.js';

const SLOW = 45_000;
// real pace: a pod takes about a second to terminate, so a release lasts a few seconds
const e2e = consoleTests({ config: { timeScale: 1 } });
let pool = 0;

const ctxOf = (actor: string) => createEngineContext(e2e.kube, { actor });
const podUid = (member: string) =>
	e2e.sim.cluster.store.get('pods', 'corral', member)?.metadata.uid;
const lease = (member: string) => e2e.sim.cluster.store.get('leases', 'corral', leaseName(member));

/** A fresh pool with one member claimed by zoe, the console open on it with that member selected. */
async function openWithClaim(
	claimIt = true,
): Promise<{ name: string; member: string; term: TestTerminal }> {
	pool++;
	const name = `h${pool}`;
	await apply(ctxOf('test'), name, poolSpec({ size: 1 }));
	await waitFor(async () => (await readPool(ctxOf('test'), name)).members[0]?.state === 'Ready', {
		what: `${name}-1 Ready`,
		timeoutMs: SLOW,
	});
	const member = claimIt
		? (await claim(ctxOf('zoe@example.com'), name, 'zoe@example.com')).member
		: `${name}-1`;
	const t = e2e.start({
		args: [name, '--identity', 'erin@example.com'],
		kubeconfig: e2e.sim.kubeconfigPath,
		cacheDir: join(e2e.sim.dir, 'kube-cache'),
	});
	await t.waitFor(
		new RegExp(claimIt ? `${member}\\s+\\S+\\s+zoe@example\\.com` : `${member}\\s+Ready`),
		SLOW,
	);
	await t.waitFor('● live', SLOW);
	return { name, member, term: t };
}

/** Starts a forced release of the selected member and waits until it is under way. */
async function startRelease(term: TestTerminal, member: string): Promise<void> {
	term.write('x');
	await term.waitFor(`Release ${member} (held by zoe@example.com) with --force?`, SLOW);
	term.write('y');
	await term.waitFor(`releasing ${member}`, SLOW);
}

describe('quitting during a release', { timeout: 120_000 }, () => {
	it.each([['q'], ['SIGTERM'], ['SIGHUP']])(
		'%s: the console says it finishes, waits, and the release completes',
		async (how) => {
			const { member, term } = await openWithClaim();
			const before = podUid(member);
			await startRelease(term, member);
			if (how === 'q') {
				term.write('q');
				await term.waitFor(`finishing releasing ${member} before quitting`, SLOW);
			} else term.kill(how);
			expect(await term.exited).toBe(0);
			// made again from the image, and no Lease left
			expect(lease(member)).toBeUndefined();
			await waitFor(() => podUid(member) !== undefined && podUid(member) !== before, {
				what: `${member} made again`,
			}).catch(() => {});
			expect(podUid(member)).toBeDefined();
			expect(podUid(member)).not.toBe(before);
		},
	);

	it('a second q abandons it: the next reconcile makes the member again at once', async () => {
		const { name, member, term } = await openWithClaim();
		await startRelease(term, member);
		term.write('q');
		await term.waitFor(`finishing releasing ${member} before quitting`, SLOW);
		term.write('q');
		await term.exited;
		// whatever step it was cut at, one reconcile (after the Lease's one second) repairs it
		await waitFor(
			async () => {
				await reconcile(ctxOf('test'), name);
				return lease(member) === undefined && podUid(member) !== undefined;
			},
			{ what: `${member} repaired by reconcile`, timeoutMs: 20_000 },
		);
		expect(
			e2e.sim.cluster.store.get('persistentvolumeclaims', 'corral', `${member}-data`)?.metadata
				.annotations?.['corral.dev/vdi-maintenance'],
		).toBeUndefined();
	});
});

describe('pasted escape sequences', { timeout: 120_000 }, () => {
	it('in the filter and the claim prompt do not end the console', async () => {
		const { term } = await openWithClaim(false);
		const pasted = '\u001b[31mred\u001b[0m \u001b[5mblink\u001b[6n\u001b[1;2;3;4;5;6;99;5~';
		term.write('/');
		await term.waitFor('Enter keeps', SLOW);
		term.write(pasted);
		await term.waitFor('blink', SLOW);
		term.write('\u001b');
		// The prompt (its cursor ▏) is gone: its hint is cut at 80 columns once text is in it.
		await term.waitFor((s) => !s.includes('▏'), SLOW);
		term.write('c');
		await term.waitFor('Claim a free member', SLOW);
		term.write(pasted);
		await term.waitFor('blink', SLOW);
		term.write('\u001b');
		await term.waitFor((s) => !s.includes('Claim a free member'), SLOW);
		expect(term.screen()).not.toContain('startsWith');
		expect(await quit(term)).toBe(0);
		expect(term.output()).not.toContain('TypeError');
	});
});
