/** `ctpool --demo` end to end: the real binary in a terminal, a second client through its kubeconfig. */

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quit, startCtpool } from '../e2e/ctpool-console.js';
import { requireBuild } from '../support/built-cli.js';
import { kubectl, kubectlAvailable } from '../support/kubectl.js';
import type { TestTerminal } from '../support/terminal.js';

let dir: string;
let t: TestTerminal | null = null;

beforeAll(async () => {
	requireBuild();
	dir = await mkdtemp(join(tmpdir(), 'ctpool-demo-test-'));
});

afterAll(async () => {
	t?.dispose();
	await rm(dir, { recursive: true, force: true });
});

describe('ctpool --demo', { timeout: 120_000 }, () => {
	it('runs the demo pool with live users, shows its kubeconfig for kubectl, and quits cleanly', async () => {
		const kubeconfig = join(dir, 'demo-kubeconfig');
		// A newcomer: no -n, no CORRAL_NAMESPACE; the demo lives in Corral's namespace, corral-vms.
		t = startCtpool({
			args: ['--demo', '--kubeconfig-out', kubeconfig],
			columns: 120,
			rows: 30,
			env: { CORRAL_NAMESPACE: '' },
		});
		await t.waitFor(/desk-6\s+(Ready|Starting)/, 60_000);
		expect(t.screen()).toContain(`kubeconfig ${kubeconfig}`);
		expect(t.screen()).toContain('ns corral-vms');
		expect(existsSync(kubeconfig)).toBe(true);
		expect(t.screen()).toMatch(/image ghcr\.io\/example\/desktop:1 · size 6/);
		expect(t.screen()).toContain('⟳ loop');
		// the demo users claim desktops by themselves
		await t.waitFor(/desk-\d\s+Ready\s+\w+@example\.com/, 60_000);
		if (kubectlAvailable()) {
			// no -n: the demo's kubeconfig names corral-vms
			const r = await kubectl(['get', 'pods'], {
				kubeconfig,
				cacheDir: join(dir, 'cache'),
			});
			expect(r.code).toBe(0);
			expect(r.stdout).toMatch(/desk-1\s+1\/1\s+Running/);
		}
		expect(await quit(t)).toBe(0);
		expect(t.altScreen()).toBe(false);
	});

	it('--narrate tells the story in a pane beside the table: Space pauses, n tells the next', async () => {
		t?.dispose();
		t = startCtpool({
			args: ['--demo', '--narrate', '--kubeconfig-out', join(dir, 'narrated-kubeconfig')],
			columns: 160,
			rows: 30,
			env: { CORRAL_NAMESPACE: '' },
		});
		await t.waitFor(
			/narrated demo \(a sentence every 4 s: Space pauses, n tells the next\)/,
			60_000,
		);
		// no random users and no loop: the script acts
		expect(t.screen()).not.toContain('⟳ loop');
		// the first scene at once, in the pane (the second waits its turn)
		await t.waitFor(/── narration · ▶ telling/, 60_000);
		await t.waitFor(/alice@example\.com claims desk-1: a Lease/, 60_000);
		// Space pauses: the pane says so, and the clock tells nothing more
		t.write(' ');
		await t.waitFor(/── narration · ⏸ paused/, 10_000);
		expect(t.screen()).not.toMatch(/alice@example\.com is done and releases desk-1/);
		// n tells the next sentence now, though paused
		t.write('n');
		await t.waitFor(/alice@example\.com is done and releases desk-1/, 10_000);
		expect(t.screen()).toMatch(/── narration · ⏸ paused/);
		// the sentences are the pane's: the activity log no longer gets them
		t.write('l');
		await t.waitFor(/── activity/, 10_000);
		expect(t.screen()).not.toMatch(/narrator narrate/);
		// Space again: telling goes on
		t.write(' ');
		await t.waitFor(/── narration · ▶ telling/, 10_000);
		expect(await quit(t)).toBe(0);
		expect(t.altScreen()).toBe(false);
	});
});
