/**
 * The real ctpool binary in a pseudo-terminal against a simulated cluster started here:
 * what an admin sees and does, read from the screen.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, claim, createEngineContext, writeDefinition } from '../../source/engine/index.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { poolSpec } from '../support/pool-spec.js';
import type { TestTerminal } from '../support/terminal.js';
import { consoleTests, quit } from './ctpool-console.js';

const SLOW = 45_000;
if (!kubectlAvailable() && process.env.CI !== 'true')
	process.stdout.write('[skip] the console tests with kubectl: kubectl is not on the PATH\n');
/** A finalizer the tests put on an object to hold its deletion until they let go. */
const HOLD = 'test.ctpool.dev/hold';

// a fifth of real pace: a container starts in 0.3 s; ctpool's 1 s grace lasts 0.2 s
const e2e = consoleTests({ config: { timeScale: 0.2 } });
let pool = 0;

/** A fresh pool of the given size (each test its own), ready, and ctpool open on it. */
async function openOn(
	size: number,
	extra: string[] = [],
): Promise<{ name: string; term: TestTerminal }> {
	pool++;
	const name = `p${pool}`;
	await apply(createEngineContext(e2e.kube, { actor: 'test' }), name, poolSpec({ size }));
	const t = e2e.start({
		args: [name, '--identity', 'erin@example.com', ...extra],
		kubeconfig: e2e.sim.kubeconfigPath,
		cacheDir: join(e2e.sim.dir, 'kube-cache'),
	});
	const last = `${name}-${size}`;
	await t.waitFor(new RegExp(`${last}\\s+Ready`), SLOW);
	await t.waitFor('● live', SLOW);
	return { name, term: t };
}

describe('ctpool console end to end', { timeout: 120_000 }, () => {
	it('claims a member and shows its holder; q quits and gives the terminal back', async () => {
		const { name, term } = await openOn(2);
		expect(term.altScreen()).toBe(true);
		term.write('c');
		await term.waitFor(`Claim a free member of ${name} for: erin@example.com`, SLOW);
		term.write('\r');
		await term.waitFor(
			new RegExp(`${name}-1\\s+Ready\\s+erin@example\\.com\\s+\\d+s 59m left`),
			SLOW,
		);
		await term.waitFor(`${name}-1 claimed by erin@example.com`, SLOW);
		expect(await quit(term)).toBe(0);
		expect(term.altScreen()).toBe(false);
		expect(
			term.output().endsWith('\u001b[?25h') || term.output().includes('\u001b[?1049l\u001b[?25h'),
		).toBe(true);
	});

	it('force-releases a claimed member: Terminating, then Ready with no holder', async () => {
		const { name, term } = await openOn(2);
		const { member } = await claim(
			createEngineContext(e2e.kube, { actor: 'zoe@example.com' }),
			name,
			'zoe@example.com',
		);
		await term.waitFor(new RegExp(`${member}\\s+Ready\\s+zoe@example\\.com`), SLOW);
		term.write('/');
		for (const ch of member) term.write(ch);
		term.write('\r');
		await term.waitFor(
			(s) => !new RegExp(`^${name}-2 `, 'm').test(s) || member === `${name}-2`,
			SLOW,
		);
		term.write('x');
		await term.waitFor(`Release ${member} (held by zoe@example.com) with --force?`, SLOW);
		// A finalizer of the test's holds the PVC, so that Terminating lasts until the screen has
		// shown it (ctpool's 1 s grace is 0.2 s here, too short to count on under load).
		const store = e2e.sim.cluster.store;
		const pvcName = `${member}-data`;
		const finalizers = (add: boolean) => {
			const pvc = store.get('persistentvolumeclaims', 'corral', pvcName)!;
			const rest = (pvc.metadata.finalizers ?? []).filter((f) => f !== HOLD);
			store.update('persistentvolumeclaims', {
				...pvc,
				metadata: { ...pvc.metadata, finalizers: add ? [...rest, HOLD] : rest },
			});
		};
		finalizers(true);
		term.write('y');
		await term.waitFor(new RegExp(`${member}\\s+Terminating`), SLOW);
		finalizers(false);
		await term.waitFor(new RegExp(`${member}\\s+Ready\\s+-\\s`), SLOW);
		await term.waitFor(`released ${member} (claimed by zoe@example.com)`, SLOW);
	});

	it('reconciles after a scale-up', async () => {
		const { name, term } = await openOn(2);
		await writeDefinition(
			createEngineContext(e2e.kube, { actor: 'test' }),
			name,
			poolSpec({ size: 3 }),
		);
		await term.waitFor(new RegExp(`${name}-3\\s+Missing`), SLOW);
		term.write('r');
		await term.waitFor(new RegExp(`${name}-3\\s+Ready`), SLOW);
		await term.waitFor(new RegExp(`reconciled ${name}: create ${name}-3`), SLOW);
	});

	it.skipIf(!kubectlAvailable() && process.env.CI !== 'true')(
		'opens a console with the real kubectl and comes back redrawn, selection and filter kept',
		async () => {
			const { name, term } = await openOn(2);
			term.write('/');
			term.write('-2');
			term.write('\r');
			await term.waitFor((s) => !new RegExp(`^${name}-1 `, 'm').test(s), SLOW);
			term.write('s');
			await term.waitFor(new RegExp(`${name}-2:/# $`, 'm'), SLOW);
			expect(term.altScreen()).toBe(false);
			// keys typed in the console belong to the shell: q does not quit ctpool
			term.write('echo q\r');
			await term.waitFor(/^q$/m, SLOW);
			term.write('hostname\r');
			await term.waitFor(new RegExp(`^${name}-2$`, 'm'), SLOW);
			term.write('exit\r');
			await term.waitFor(`console on ${name}-2 closed`, SLOW);
			const screen = await term.waitFor(/NAME\s+STATE/, SLOW);
			expect(term.altScreen()).toBe(true);
			expect(screen).toMatch(new RegExp(`^${name}-2\\s+Ready`, 'm'));
			expect(screen).not.toMatch(new RegExp(`^${name}-1 `, 'm'));
			// again, resizing inside the console and leaving with Ctrl-D
			term.write('s');
			await term.waitFor(new RegExp(`${name}-2:/# $`, 'm'), SLOW);
			term.resize(84, 26);
			term.write('\u0004');
			await term.waitFor(/NAME\s+STATE/, SLOW);
			expect(term.altScreen()).toBe(true);
			await term.waitFor(
				(s) => new RegExp(`^${name}-2\\s+Ready`, 'm').test(s) && /⏎ open Esc back/.test(s),
				SLOW,
			);
			// drawn for the new size: 26 rows, the key hints on the last row but one
			expect(term.lines().length).toBe(26);
			for (const l of term.lines()) expect(l.length).toBeLessThanOrEqual(84);
			expect(term.lines().at(-2)).toMatch(/⏎ open Esc back/);
			expect(await quit(term)).toBe(0);
		},
	);

	it.skipIf(!kubectlAvailable() && process.env.CI !== 'true')(
		'comes back with the reason when kubectl fails (exec forbidden)',
		async () => {
			const { name, term } = await openOn(1);
			e2e.sim.cluster.config.deny = ['create pods/exec'];
			try {
				term.write('s');
				await term.waitFor(
					new RegExp(`console on ${name}-1 failed \\(exit 1\\): .*forbidden`, 'i'),
					SLOW,
				);
				expect(term.altScreen()).toBe(true);
				expect(term.screen()).toMatch(new RegExp(`^${name}-1\\s+Ready`, 'm'));
			} finally {
				e2e.sim.cluster.config.deny = [];
			}
			term.write('l');
			await term.waitFor(/activity \(\d+, 1 error\)/, SLOW);
			expect(await quit(term)).toBe(0);
		},
	);

	it('comes back with the reason when kubectl is not installed', async () => {
		pool++;
		const name = `p${pool}`;
		await apply(createEngineContext(e2e.kube, { actor: 'test' }), name, poolSpec({ size: 1 }));
		const t = e2e.start({
			args: [name],
			kubeconfig: e2e.sim.kubeconfigPath,
			env: { PATH: join(e2e.sim.dir, 'no-such-bin') },
		});
		await t.waitFor(new RegExp(`${name}-1\\s+Ready`), SLOW);
		t.write('s');
		await t.waitFor(
			`console on ${name}-1 did not open: kubectl is not installed or not on the PATH`,
			SLOW,
		);
		expect(t.altScreen()).toBe(true);
		t.write('j');
		expect(await quit(t)).toBe(0);
	});

	it('shows keys the identity lacks rights for as disabled, with the missing permission', async () => {
		e2e.sim.cluster.config.deny = ['create pods/exec'];
		try {
			const { name, term } = await openOn(1);
			term.write('?');
			await term.waitFor(/open a shell .* disabled: forbidden: cannot create p/, SLOW);
			expect(term.screen()).toContain(`pool ${name} · ns corral`);
			term.write('\u001b');
			await term.waitFor(/NAME\s+STATE/, SLOW);
			term.write('s');
			await term.waitFor(/console: forbidden: cannot create pods\/exec in namespace corral/, SLOW);
			expect(term.altScreen()).toBe(true);
		} finally {
			e2e.sim.cluster.config.deny = [];
		}
	});

	it('opens the pools screen without a pool, and --read-only removes every mutating key', async () => {
		pool++;
		const name = `p${pool}`;
		await apply(createEngineContext(e2e.kube, { actor: 'test' }), name, poolSpec({ size: 1 }));
		const t = e2e.start({
			args: ['--read-only'],
			kubeconfig: e2e.sim.kubeconfigPath,
			columns: 120,
		});
		await t.waitFor(new RegExp(`^${name}\\s+ghcr\\.io/example/desktop:1\\s+1/1`, 'm'), SLOW);
		expect(t.screen()).toMatch(/pools \(\d+\)/);
		expect(t.screen()).toContain('read-only');
		const hints = t.lines().at(-2) ?? '';
		expect(hints).toContain('help');
		for (const h of ['claim', 'release', 'reconcile', 'loop', 'maint', 'console'])
			expect(hints).not.toContain(h);
		t.write('G');
		t.write('\r');
		await t.waitFor(new RegExp(`pool ${name} · ns corral`), SLOW);
		t.write('c');
		await t.waitFor('claim: read-only mode (--read-only)', SLOW);
		expect(await quit(t)).toBe(0);
	});

	it('shows the stale banner while the watches are down, and clears it when they are back', async () => {
		const { term } = await openOn(1);
		e2e.sim.cluster.faults.refuseConnectionsFor(7_000);
		await term.waitFor(/STALE\s+stale since \d\d:\d\d:\d\d · retry \d+ · last error/, 30_000);
		expect(term.screen()).toMatch(/◌ reconnecting \(retry \d+\)/);
		await term.waitFor((s) => !s.includes('STALE') && s.includes('● live'), SLOW);
	});

	it('redraws on resize, and says so below the minimum size', async () => {
		const { name, term } = await openOn(3);
		term.resize(72, 20);
		await term.waitFor(
			(s) => s.split('\n').some((l) => /^NAME\s+STATE/.test(l)) && !s.includes('too small'),
			SLOW,
		);
		const check = () => {
			for (const l of term.lines()) expect(l.length).toBeLessThanOrEqual(72);
		};
		check();
		term.resize(50, 12);
		await term.waitFor('Terminal too small: 50x12', SLOW);
		term.resize(100, 30);
		await term.waitFor(new RegExp(`^${name}-3\\s+Ready`, 'm'), SLOW);
		expect(term.screen()).not.toContain('too small');
	});
});
