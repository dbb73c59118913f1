/**
 * The console's audit screen in a pseudo-terminal: a `release --force` done by another
 * process (the CLI) with its acting identity shows up, is found by filtering on that
 * identity, and a claim refused in another process appears as refused (in the audit and in
 * the members header) as soon as its Event is watched.
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apply, claim, createEngineContext } from '../../source/engine/index.js';
import { CLI } from '../support/built-cli.js';
import { poolSpec } from '../support/pool-spec.js';
import { terminalEnv } from '../support/terminal.js';
import { consoleTests, quit } from './ctpool-console.js';

const run = promisify(execFile);
const SLOW = 45_000;

const e2e = consoleTests({ config: { timeScale: 0.2 } });

/** Runs the built CLI as another process; resolves with its exit code and output. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	const env = terminalEnv({ NO_COLOR: '1' });
	delete env.KUBECONFIG;
	delete env.CTPOOL_IDENTITY;
	try {
		const r = await run(
			process.execPath,
			[CLI, ...args, '-n', e2e.cluster.ns, '--kubeconfig', e2e.cluster.kubeconfigPath],
			{ env },
		);
		return { code: 0, stdout: r.stdout, stderr: r.stderr };
	} catch (err) {
		const e = err as { code?: number; stdout?: string; stderr?: string };
		return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
	}
}

describe('the audit screen end to end', { timeout: 150_000 }, () => {
	it('shows a forced release by the CLI with its acting identity, filters by it, and shows a refused claim', async () => {
		const pool = 'aud';
		await apply(createEngineContext(e2e.kube, { actor: 'test' }), pool, poolSpec({ size: 2 }));

		const t = e2e.start({
			args: [pool, '-n', e2e.cluster.ns, '--identity', 'admin@ops'],
			columns: 100,
			rows: 30,
		});
		await t.waitFor(new RegExp(`${pool}-2\\s+Ready`), SLOW);
		await t.waitFor('● live', SLOW);
		const { member } = await claim(
			createEngineContext(e2e.kube, { actor: 'zoe@example.com' }),
			pool,
			'zoe@example.com',
		);
		await t.waitFor(new RegExp(`${member}\\s+Ready\\s+zoe@example\\.com`), SLOW);

		// another process force-releases it, acting as nightshift@ops
		const released = await cli([
			'release',
			pool,
			member,
			'nightshift@ops',
			'--force',
			'--identity',
			'nightshift@ops',
		]);
		expect(released.stderr).toBe('');
		expect(released.code).toBe(0);

		t.write('e');
		await t.waitFor(/audit · pool aud · \d+ lines/, SLOW);
		await t.waitFor(/release --force\s+aud-\d\s+zoe@example\.com\s+nightshift@ops/, SLOW);
		await t.waitFor('Events kept ~1h by the cluster', SLOW);

		// filter by the acting identity: the release (and its re-create), not zoe's claim
		t.write('/');
		for (const ch of 'identity:nightshift@ops') t.write(ch);
		t.write('\r');
		await t.waitFor(/audit · pool aud · 2 lines matching identity:nightshift@ops/, SLOW);
		expect(t.screen()).toMatch(/release --force/);
		expect(t.screen()).not.toMatch(/^\s*\S+\s+aud\s+claim\s/m);

		// a claim refused in another process: fill the pool, then claim from the CLI
		for (const who of ['amy@example.com', 'ben@example.com'])
			await claim(createEngineContext(e2e.kube, { actor: who }), pool, who).catch(() => null);
		const refused = await cli(['claim', pool, 'hal@example.com']);
		expect(refused.code).not.toBe(0);
		expect(refused.stderr).toContain('pool has no free members');
		t.write('\u001b'); // Esc clears the filter
		await t.waitFor(/claim-refused\s+-\s+hal@example\.com/, SLOW);
		t.write('\u001b'); // Esc goes back to the members screen
		// the counts line shortens its labels to fit (refused/1h, refused, ref)
		await t.waitFor(/ (refused\/1h|refused|ref) 1 /, SLOW);
		expect(await quit(t)).toBe(0);
	});
});
