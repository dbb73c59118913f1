/**
 * The console's namespace, as Corral's: without -n it is $CORRAL_NAMESPACE, else corral-vms.
 * The real binary in a terminal against the simulated cluster.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { apply, createEngineContext } from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { poolSpec } from '../support/pool-spec.js';
import { consoleTests, quit } from './ctpool-console.js';

const e2e = consoleTests({ namespaces: ['team-x'] });
beforeAll(async () => {
	for (const [namespace, image] of [
		['corral-vms', 'ghcr.io/example/default:1'],
		['team-x', 'ghcr.io/example/team:1'],
	] as const) {
		const kube = await loadKube({ kubeconfig: e2e.sim.kubeconfigPath, namespace });
		await apply(createEngineContext(kube, { actor: 'test' }), 'home', poolSpec({ image, size: 1 }));
	}
});

describe('the console namespace', { timeout: 60_000 }, () => {
	it.each([
		['corral-vms without -n and CORRAL_NAMESPACE', '', 'corral-vms', 'default:1'],
		['$CORRAL_NAMESPACE when set', 'team-x', 'team-x', 'team:1'],
	])('is %s', async (_what, env, namespace, image) => {
		const t = e2e.start({
			args: ['home'],
			env: { CORRAL_NAMESPACE: env },
			columns: 120,
		});
		await t.waitFor(new RegExp(`ns ${namespace}`));
		await t.waitFor(new RegExp(`image ghcr\\.io/example/${image.replace('.', '\\.')}`));
		expect(t.screen()).toContain('home-1');
		expect(await quit(t)).toBe(0);
	});
});
