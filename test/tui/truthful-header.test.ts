/**
 * Issue 12, "also": with credentials refused (401/403) on the watches or the loop the header
 * says so, not "● live"; with watches dropped every few seconds the header follows the data
 * (live while it is current), not a retry counter that only grows.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, createEngineContext } from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import type { ConnectionState } from '../../source/kube/connection-state.js';
import { startPoolWatch } from '../../source/kube/pool-watch.js';
import { connectionView, headerConnection } from '../../source/tui/model/staleness.js';
import { createEngineOperations } from '../../source/tui/session/engine-operations.js';
import { createConsoleStore } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

let sim: TestSim;
let kube: Kube;
beforeAll(async () => {
	sim = await startTestSim();
	kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
	await apply(createEngineContext(kube, { actor: 'test' }), 'desk', poolSpec({ size: 1 }));
});
afterAll(() => sim?.cleanup());

/** A Kube for the same cluster whose token the cluster refuses (credentials revoked). */
async function revokedKube(): Promise<Kube> {
	const file = join(sim.dir, 'revoked.yaml');
	const text = (await import('node:fs')).readFileSync(sim.kubeconfigPath, 'utf8');
	writeFileSync(file, text.replace(/token: .*/, 'token: revoked-token-0000'));
	return loadKube({ kubeconfig: file });
}

describe('refused credentials', () => {
	it('on the loop: the header says unauthorized while the (older) watches still stream', async () => {
		const store = createConsoleStore({ session: { namespace: 'corral' }, pool: 'desk' });
		// the watches opened with good credentials: synced
		const watch = startPoolWatch(
			kube,
			{ namespace: 'corral', batchMs: 10 },
			{
				onBatch: (c) => store.getState().applyBatch(c),
				onConnection: (o) => store.getState().setConnection(o),
			},
		);
		const ops = createEngineOperations({
			store,
			kube: await revokedKube(),
			namespace: 'corral',
			actor: 'admin',
			loopIntervalMs: 60_000,
		});
		try {
			await waitFor(() => store.getState().connection.phase === 'synced', { what: 'synced' });
			ops.loop.start('desk');
			await waitFor(() => store.getState().authProblem !== null, { what: 'the 401 noted' });
			const s = store.getState();
			expect(headerConnection(s.connection, s.authProblem, Date.now()).label).toBe(
				'✕ unauthorized',
			);
		} finally {
			ops.close();
			watch.stop();
		}
	});

	it('on the watches: the header says unauthorized, not "watch failed"', async () => {
		const store = createConsoleStore({ session: { namespace: 'corral' }, pool: 'desk' });
		const watch = startPoolWatch(
			await revokedKube(),
			{ namespace: 'corral', batchMs: 10, backoffMs: { initial: 20, max: 200 } },
			{
				onBatch: (c) => store.getState().applyBatch(c),
				onConnection: (o) => store.getState().setConnection(o),
			},
		);
		try {
			await waitFor(() => store.getState().connection.phase === 'failed', { what: 'failed' });
			const s = store.getState();
			expect(headerConnection(s.connection, s.authProblem, Date.now()).label).toMatch(
				/^✕ unauthorized \(retry \d+\)$/,
			);
		} finally {
			watch.stop();
		}
	});
});

describe('watches dropped every few hundred milliseconds', () => {
	it('reconnect without a growing retry count, and the header reads live while the data is current', async () => {
		// bookmarks as rare as a real apiserver's (about a minute): no event marks the data current
		const quiet = await startTestSim({ bookmarkIntervalMs: 600_000 });
		const quietKube = await loadKube({ kubeconfig: quiet.kubeconfigPath });
		const states: ConnectionState[] = [];
		const watch = startPoolWatch(
			quietKube,
			{ namespace: 'corral', batchMs: 10, backoffMs: { initial: 20, max: 5_000 } },
			{ onBatch: () => {}, onConnection: (o) => states.push(o) },
		);
		try {
			await waitFor(() => states.at(-1)?.phase === 'synced', { what: 'synced' });
			const before = quiet.cluster.faults.counts.droppedWatches;
			quiet.cluster.faults.set({ dropWatchesEveryMs: 1500 });
			await waitFor(() => quiet.cluster.faults.counts.droppedWatches >= before + 12, {
				what: 'a dozen drops',
				timeoutMs: 60_000,
			});
			quiet.cluster.faults.set({ dropWatchesEveryMs: 0 });
			const retries = states.flatMap((s) => (s.phase === 'reconnecting' ? [s.attempts] : []));
			expect(retries.length).toBeGreaterThan(0);
			expect(Math.max(...retries)).toBe(1);
			// a restart of a moment reads live
			const moment = states.find((s) => s.phase === 'reconnecting')!;
			expect(connectionView(moment, moment.since + 100).label).toBe('● live');
		} finally {
			watch.stop();
			await quiet.cleanup();
		}
	}, 90_000);
});
