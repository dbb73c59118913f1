/**
 * The console's namespace, as Corral's: without -n it is $CORRAL_NAMESPACE, else corral-vms.
 * The real binary in a terminal against the simulated cluster.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, createEngineContext } from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { poolSpec } from '../support/pool-spec.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { quit, requireBuild, startCtpool } from './ctpool-console.js';

let sim: TestSim;
beforeAll(async () => {
	requireBuild();
	sim = await startTestSim({ namespaces: ['team-x'] });

	for (const [namespace, image] of [
		['corral-vms', 'ghcr.io/example/default:1'],
		['team-x', 'ghcr.io/example/team:1'],
	] as const) {
		const kube = await loadKube({ kubeconfig: sim.kubeconfigPath, namespace });
		await apply(createEngineContext(kube, { actor: 'test' }), 'home', poolSpec({ image, size: 1 }));
	}
});
afterAll(() => sim?.cleanup());

describe('the console namespace', { timeout: 60_000 }, () => {
	it.each([
		['corral-vms without -n and CORRAL_NAMESPACE', '', 'corral-vms', 'default:1'],
		['$CORRAL_NAMESPACE when set', 'team-x', 'team-x', 'team:1'],
	])('is %s', async (_what, env, namespace, image) => {
		const t = startCtpool({
			args: ['home'],
			kubeconfig: sim.kubeconfigPath,
			env: { CORRAL_NAMESPACE: env },
			columns: 120,
		});
		try {
			await t.waitFor(new RegExp(`ns ${namespace}`));
			await t.waitFor(new RegExp(`image ghcr\\.io/example/${image.replace('.', '\\.')}`));
			expect(t.screen()).toContain('home-1');
			expect(await quit(t)).toBe(0);
		} finally {
			t.dispose();
		}
	});
});
