/** The demo actors against a simulated cluster: users claim and release through the engine, members crash. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoActors } from '../../source/demo/actors.js';
import { demoSpec } from '../../source/demo/run.js';
import {
	apply,
	createEngine,
	createEngineContext,
	type EngineEvent,
	readPool,
	reconcile,
} from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

let sim: TestSim;
let kube: Kube;

beforeAll(async () => {
	sim = await startTestSim();
	kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
	await apply(createEngineContext(kube, { actor: 'test' }), 'desk', demoSpec(4));
});

afterAll(async () => {
	await sim?.cleanup();
});

describe('demo actors', () => {
	it('claim, keep and release desktops through the engine, and make members crash', async () => {
		const events: EngineEvent[] = [];
		// the console's live loop, as in the demo: it replaces crashed members
		let looping = true;
		const loop = (async () => {
			const ctx = createEngineContext(kube, { actor: 'loop' });
			while (looping) {
				await reconcile(ctx, 'desk').catch(() => {});
				await new Promise((r) => setTimeout(r, 30));
			}
		})();
		const actors = startDemoActors({
			engine: createEngine(kube),
			pool: 'desk',
			controllers: sim.cluster.controllers,
			emit: (e) => events.push(e),
			users: ['alice@example.com', 'bob@example.com'],
			pace: { thinkMs: [10, 40], holdMs: [30, 80], crashEveryMs: [200, 300] },
			seed: 7,
		});
		try {
			await waitFor(
				() =>
					events.some(
						(e) => e.action === 'claim' && e.outcome === 'ok' && e.actor === 'alice@example.com',
					) &&
					events.some(
						(e) => e.action === 'claim' && e.outcome === 'ok' && e.actor === 'bob@example.com',
					) &&
					events.some((e) => e.action === 'release' && e.outcome === 'ok') &&
					events.some((e) => e.action === 'crash' && e.actor === 'demo/chaos'),
				{ what: 'claims by both users, a release and a crash', timeoutMs: 20_000 },
			);
		} finally {
			await actors.stop();
			looping = false;
			await loop;
		}
		const count = events.length;
		await new Promise((r) => setTimeout(r, 150));
		expect(events.length).toBe(count);
		// the crash is real: the cluster shows a Failed member or one being replaced
		const crashed = events.find((e) => e.action === 'crash')?.member;
		expect(crashed).toMatch(/^desk-\d$/);
		const snap = await readPool(createEngineContext(kube), 'desk');
		expect(snap.members.length).toBe(4);
	});
});
