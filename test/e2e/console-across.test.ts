/**
 * Across namespaces in a real terminal (issue 14): `ctpool -A --bell` against the simulated
 * cluster with three pools in two namespaces and the demo users holding claims shows every
 * pool with its namespace; `/bob` then Enter lands on bob's member; a pool that becomes
 * exhausted while watched rings the bell once.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../source/demo/actors.js';
import { apply, claim, createEngineContext, reconcile } from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { poolSpec } from '../support/pool-spec.js';
import { consoleTests, quit } from './ctpool-console.js';

const BOB = 'bob@example.com';
const c = consoleTests({ namespaces: ['team-a', 'team-b'] });

/** An engine context in a namespace of the test cluster. */
async function inNamespace(namespace: string) {
	const kube = await loadKube({ kubeconfig: c.sim.kubeconfigPath, namespace });
	return createEngineContext(kube, { actor: 'test' });
}

beforeAll(async () => {
	expect(DEMO_USERS).toContain(BOB);
	for (const [namespace, pool, size] of [
		['team-a', 'desk', 2],
		['team-a', 'lab', 1],
		['team-b', 'desk', 2],
	] as const) {
		const ctx = await inNamespace(namespace);
		await apply(ctx, pool, poolSpec({ size }));
		await reconcile(ctx, pool);
	}
	// demo users hold claims: one in each desk pool, bob in team-b
	const others = DEMO_USERS.filter((u) => u !== BOB);
	await claim(await inNamespace('team-a'), 'desk', others[0]!);
	await claim(await inNamespace('team-b'), 'desk', BOB);
}, 60_000);

describe('ctpool -A in a terminal', { timeout: 90_000 }, () => {
	it('shows every pool with its namespace; /bob then Enter opens his member; --bell rings on exhaustion', async () => {
		const t = c.start({
			args: ['-A', '--bell'],
			columns: 80,
			rows: 24,
		});
		await t.waitFor(/pools \(3\) · all namespaces/);
		// the counts known (every kind listed): team-b's desk has one of two free (at 80
		// columns READY, FREE NOW and the cause columns; CLAIMED gives way)
		await t.waitFor(
			(s) =>
				/^team-b\s+desk\s+2\/2\s+\d+\s+1\s+0\s+0\s+0\s+0\s/m.test(s) && /^team-a\s+lab\s/m.test(s),
		);
		const screen = t.screen();
		expect(screen).toMatch(/^NAMESPACE\s+POOL\s/m);
		expect(screen).toMatch(/^team-a\s+desk\s/m);
		expect(t.output()).not.toContain('\u0007');

		// another process takes the last free member of team-b's desk: exhausted, one bell
		await claim(await inNamespace('team-b'), 'desk', 'walk-in@example.com');
		await t.waitFor(() => t.output().includes('\u0007'), 20_000);
		expect(t.output().split('\u0007')).toHaveLength(2);

		t.write('/bob');
		await t.waitFor(/find bob: 1 hit in 3 pools/);
		expect(t.screen()).toMatch(/^team-b\s+desk\s+desk-\d\s+\S+\s+bob@example\.com/m);
		t.write('\r');
		const details = await t.waitFor(/pool desk · ns team-b/);
		expect(details).toContain(BOB);
		expect(details).toMatch(/EXHAUSTED since \d\d:\d\d/);
		// Esc goes back to that pool's members (both rows in the table)
		t.write('\u001b');
		await t.waitFor((s) => /^desk-1\s+\S/m.test(s) && /^desk-2\s+\S/m.test(s));
		expect(await quit(t)).toBe(0);
	});

	it('an identity that cannot list across namespaces is told the fix before any screen', async () => {
		const kubeconfig = await c.sim.cluster.serviceAccountKubeconfig('team-a', 'nobody');
		const t = c.start({ args: ['-A'], kubeconfig, columns: 100 });
		const code = await t.exited;
		expect(code).toBe(1);
		expect(t.output()).toContain('cannot list configmaps in all namespaces: use -n NAMESPACE');
		expect(t.altScreen()).toBe(false);
	});
});
