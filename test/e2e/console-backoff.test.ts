/**
 * A pool whose image cannot be pulled, in the real ctpool binary in a pseudo-terminal: the
 * live loop replaces the failing members with backoff, then stops replacing and says so once;
 * the header, the pools screen and the member details say what to do.
 */

import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { apply, createEngineContext } from '../../source/engine/index.js';
import { type PoolSpec, parseReplaceRecord } from '../../source/pool/index.js';
import { itSim } from '../support/cluster.js';
import { consoleTests, quit } from './ctpool-console.js';

const BROKEN: PoolSpec = {
	image: 'registry.invalid/desktop:1',
	cpu: '1',
	memory: '1Gi',
	disk: '5Gi',
	storageClass: '',
	privileged: false,
	init: false,
	mode: 'ephemeral',
	size: 3,
};

/** Time for the whole backoff (a 10 s wait between the two replaces) on a loaded machine. */
const SLOW = 120_000;

const c = consoleTests({ config: { timeScale: 0.2 } });

/** The screen as one line (the hints wrap at 80 columns). */
function flat(screen: string): string {
	return screen
		.split('\n')
		.map((l) => l.trim())
		.join(' ')
		.replace(/\s+/g, ' ');
}

async function podUids(): Promise<string[]> {
	const pods = await c.cluster.api.byName('pods');
	return ['bad-1', 'bad-2', 'bad-3'].map((m) => pods.get(m)?.metadata.uid ?? '');
}

async function stopEvents(): Promise<number> {
	return (await c.cluster.api.list('events')).filter(
		(e) => (e as { reason?: string }).reason === 'ReplaceStopped',
	).length;
}

describe('a broken pool image in the console', () => {
	itSim(
		'replaces with backoff, then stops replacing, reports it once and says what to do',
		"the real cluster's kwok nodes run any image: no pull ever fails",
		async () => {
			await apply(createEngineContext(c.kube, { actor: 'test' }), 'bad', BROKEN);
			const term = c.start({
				args: ['bad', '--identity', 'erin@example.com'],
				cacheDir: join(c.cluster.dir, 'kube-cache'),
				columns: 80,
				rows: 24,
			});
			await term.waitFor(/bad-3\s+Failed/, SLOW);
			await term.waitFor('● live', SLOW);
			// the live loop: replaced once at once, then again after 10 s, then stopped
			term.write('a');
			const stopped = await term.waitFor('REPLACING STOPPED', SLOW);
			expect(stopped.split('\n')[2]).toMatch(/^EXHAUSTED {2}REPLACING STOPPED {2}des(ired)? 3/);
			for (const m of ['bad-1', 'bad-2', 'bad-3']) {
				const pvc = await c.cluster.api.get('persistentvolumeclaims', `${m}-data`);
				expect(parseReplaceRecord(pvc?.metadata.annotations)?.count).toBe(2);
			}
			expect(await stopEvents()).toBe(1);

			// the loop off, a reconcile by hand: nothing is replaced, the reason is said
			term.write('a');
			await term.waitFor('live reconcile loop off', SLOW);
			const before = await podUids();
			term.write('r');
			await term.waitFor(
				(s) =>
					flat(s).includes('reconcile bad: 1 failed: pool bad: 3 of 3 members failed the same way'),
				SLOW,
			);
			expect(await podUids()).toEqual(before);
			expect(await stopEvents()).toBe(1);

			// the details: the pool image cannot be pulled, with the command that changes it
			term.write('\r');
			const details = await term.waitFor(
				(s) => flat(s).includes('replacing is stopped (most of the pool fails the same way)'),
				SLOW,
			);
			expect(flat(details)).toContain(
				'the pool image registry.invalid/desktop:1 cannot be pulled (3 of 3 members): fix it in the registry, or change it with: ctpool apply bad --image <image>',
			);
			expect(flat(details)).toContain('Image registry.invalid/desktop:1 · not pulled yet');
			for (const l of term.lines()) expect(l.length).toBeLessThanOrEqual(80);

			// the pools screen: the same in one short hint
			// Esc: back to the members, the message dismissed, back to the pools (one key at a time)
			let pools = '';
			for (let i = 0; i < 4 && !pools; i++) {
				term.write('\u001b');
				pools = await term.waitFor(/pools \(1\)/, 3000).catch(() => '');
			}
			expect(flat(pools)).toContain(
				'Do: bad: the pool image cannot be pulled; replacing stopped. Change the image: ctpool apply bad --image <image>',
			);
			expect(await quit(term)).toBe(0);
		},
		4 * SLOW,
	);
});
