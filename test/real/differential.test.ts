/**
 * The simulated cluster checked against the real one. One corpus of requests (every verb on
 * every kind ctpool touches; watches and resumes, paging, dryRun, field validation,
 * conflicts, RBAC refusals, deletes with grace and finalizers, and the facts of the shared
 * notes) goes to both, in the same namespace; what must differ (uids, times,
 * resourceVersions, IPs, generated names, continue tokens) is normalised, and status codes,
 * error texts and bodies are compared. A difference fails the test unless the allow-list
 * (differential-allowed.ts) names it with its reason. The real server is right: a
 * difference is fixed in the simulator, or allowed with a reason.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiAnswer, ObjectApi } from '../support/object-api.js';
import {
	createNamespace,
	type RealReady,
	realReady,
	serviceAccountKubeconfig,
	testNamespace,
} from '../support/real-cluster.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';
import { ALLOWED, allowedReason } from './differential-allowed.js';
import { CORPUS, type CorpusCase, type Side } from './differential-corpus.js';
import { diffValues, normalise } from './differential-normalise.js';

let ns: string;
let ready: RealReady;
let sim: TestSim;
let sides: { sim: Side; real: Side };

beforeAll(async () => {
	ready = await realReady();
	ns = testNamespace();
	const realApi = ObjectApi.fromFile(ready.kubeconfig, ns);
	await createNamespace(realApi, ns);
	// The simulated cluster at a real server's pace, with the same namespace name, so that
	// names, messages and paths are the same on both sides.
	sim = await startTestSim({ namespaces: [ns], config: { timeScale: 1 } });
	const simApi = ObjectApi.fromFile(sim.kubeconfigPath, ns);
	const simNobody = await sim.cluster.serviceAccountKubeconfig(ns, 'nobody');
	const realNobody = await serviceAccountKubeconfig(realApi, ready, sim.dir, ns, 'nobody');
	await waitFor(async () => (await simApi.get('serviceaccounts', 'default')) !== undefined, {
		what: 'the simulated default ServiceAccount',
	});
	sides = {
		sim: { name: 'sim', api: simApi, nobody: ObjectApi.fromFile(simNobody, ns), ns, saved: {} },
		real: {
			name: 'real',
			api: realApi,
			nobody: ObjectApi.fromFile(realNobody, ns),
			ns,
			saved: {},
		},
	};
});

afterAll(async () => {
	await sides?.real.api.delete('namespaces', ns).catch(() => false);
	await sim?.cleanup();
});

/** What one case gave on one side, normalised. */
interface Seen {
	status: number;
	body: unknown;
}

async function runCase(side: Side, c: CorpusCase): Promise<Seen> {
	const answer: ApiAnswer = await c.run(side);
	return { status: answer.status, body: normalise(c.view ? c.view(answer.body) : answer.body, ns) };
}

describe('the simulated cluster answers as the real one', () => {
	it(`for every request of the corpus (${CORPUS.length} requests)`, async () => {
		expect(CORPUS.length).toBeGreaterThanOrEqual(150);
		const unexplained: string[] = [];
		const allowedSeen = new Set<string>();
		for (const c of CORPUS) {
			// Both sides take each step in turn, so that state (resourceVersions, existing
			// objects) moves alike.
			const real = await runCase(sides.real, c);
			const simulated = await runCase(sides.sim, c);
			const diffs = diffValues(
				{ status: real.status, body: real.body },
				{ status: simulated.status, body: simulated.body },
			);
			for (const d of diffs) {
				const key = `${c.id} ${d.path}`;
				const reason = allowedReason(key);
				if (reason) allowedSeen.add(reason);
				else unexplained.push(`${key}: real ${d.real} / sim ${d.sim}`);
			}
		}
		if (unexplained.length > 0) console.log(unexplained.join('\n'));
		expect(unexplained).toEqual([]);
		// Every allow-list entry still stands for a difference that occurs.
		expect(ALLOWED.filter((a) => !allowedSeen.has(a.reason)).map((a) => a.reason)).toEqual([]);
	}, 600_000);
});
