/**
 * Issue 22 finding 12 (the header): rights granted back mid-session are seen. A refused
 * claim puts `✕ forbidden` in the header and the viewer tier disables the changing keys;
 * once the operator tier is bound, the next re-check (every 30 s while something is refused,
 * shortened here) clears both, and so does a list or watch that succeeds again, with the
 * interval an hour. Waits are for conditions, never sleeps.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { startPoolWatch } from '../../source/kube/pool-watch.js';
import { type PolicyRule, tierRules } from '../../source/pool/permissions.js';
import { Command } from '../../source/tui/commands/keys.js';
import { headerConnection } from '../../source/tui/model/staleness.js';
import { refusedNeed, startAccessRecheck } from '../../source/tui/session/access-recheck.js';
import { createEngineOperations } from '../../source/tui/session/engine-operations.js';
import { type ConsoleStore, createConsoleStore } from '../../source/tui/store/store.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
	const { apply } = await import('../../source/engine/index.js');
	await apply(c.context(), 'back', poolSpec({ size: 1 }));
	await c.running('back');
});
afterAll(() => c?.close());

/** The account's Role now holds these rules (as `kubectl apply` of another tier would). */
async function rebind(name: string, rules: PolicyRule[]): Promise<void> {
	await c.api.patch('roles', name, { rules });
}

/** A console over the account: its store fed by the watches, its keys' operations, the re-check. */
function consoleOf(kube: Kube, intervalMs: number) {
	const store = createConsoleStore({
		session: { namespace: c.ns, actor: 'admin@example.com' },
		pool: 'back',
	});
	const watch = startPoolWatch(
		kube,
		{ namespace: c.ns, batchMs: 10, backoffMs: { initial: 20, max: 200 } },
		{
			onBatch: (b) => store.getState().applyBatch(b),
			onConnection: (o) => store.getState().setConnection(o),
		},
	);
	const ops = createEngineOperations({
		store,
		kube,
		namespace: c.ns,
		actor: 'admin@example.com',
		engine: { deleteTimeoutMs: 20_000 },
		loopIntervalMs: 3_600_000,
	});
	const access = startAccessRecheck({ store, kube, namespace: c.ns, keys: true, intervalMs });
	return {
		store,
		ops,
		access,
		close() {
			access.stop();
			ops.close();
			watch.stop();
		},
	};
}

const label = (store: ConsoleStore) => {
	const s = store.getState();
	return headerConnection(s.connection, s.authProblem, Date.now()).label;
};

/** Claims in the pool through the console's key and waits for the refusal. */
async function refusedClaim(
	store: ConsoleStore,
	ops: ReturnType<typeof consoleOf>['ops'],
	verb = 'create',
) {
	ops.claim('back', 'dora@example.com');
	await waitFor(() => store.getState().busy === null && store.getState().status !== null, {
		what: 'the claim to end',
	});
	expect(store.getState().status?.level).toBe('error');
	expect(store.getState().authProblem).toMatch(
		new RegExp(
			`forbidden: cannot ${verb} leases\\S* in namespace \\S+ \\(.*the (operator|viewer) tier has it: ctpool rbac --tier`,
		),
	);
}

describe('the header after rights come back', () => {
	it('the re-check while refused clears ✕ forbidden and enables the keys again', async () => {
		const kc = await c.grant('flip', tierRules('viewer'));
		const con = consoleOf(await loadKube({ kubeconfig: kc }), 50);
		try {
			await waitFor(() => con.store.getState().connection.phase === 'synced', 'synced');
			await con.access.check();
			const denied = con.store.getState().denied;
			expect(Object.keys(denied).sort()).toEqual(
				[
					Command.Claim,
					Command.Console,
					Command.Loop,
					Command.Maintenance,
					Command.Reconcile,
					Command.Release,
				].sort(),
			);
			expect(denied[Command.Console]).toMatch(
				/cannot create pods\/exec in namespace \S+ \(.*the operator tier has it/,
			);
			await refusedClaim(con.store, con.ops);
			expect(label(con.store)).toBe('✕ forbidden');
			// still refused: the re-checks keep it so
			await con.access.check();
			expect(label(con.store)).toBe('✕ forbidden');

			await rebind('flip', tierRules('operator'));
			await waitFor(
				() =>
					con.store.getState().authProblem === null &&
					Object.keys(con.store.getState().denied).length === 0,
				{ what: 'the refusal cleared by a re-check', timeoutMs: 10_000 },
			);
			expect(label(con.store)).toBe('● live');
			// and the key works now
			con.ops.claim('back', 'dora@example.com');
			await waitFor(() => con.store.getState().busy === null, 'the claim to end');
			expect(con.store.getState().status).toMatchObject({ level: 'ok' });
		} finally {
			con.close();
		}
	});

	it('a watch that lists again is a sign to re-check at once, however long the interval', async () => {
		// the viewer tier without leases: the Lease watch is refused, and so is a claim
		const rules = tierRules('viewer').filter((r) => !r.resources.includes('leases'));
		const kc = await c.grant('lapse', rules);
		const con = consoleOf(await loadKube({ kubeconfig: kc }), 3_600_000);
		try {
			await waitFor(() => con.store.getState().connection.phase === 'failed', 'the watch refused');
			expect(label(con.store)).toMatch(/^✕ forbidden \(retry \d+\)$/);
			await refusedClaim(con.store, con.ops, 'list');
			await con.access.check();
			expect(con.store.getState().denied[Command.Claim]).toMatch(/forbidden: cannot/);

			await rebind('lapse', tierRules('operator'));
			await waitFor(
				() =>
					con.store.getState().connection.phase === 'synced' &&
					con.store.getState().authProblem === null &&
					Object.keys(con.store.getState().denied).length === 0,
				{ what: 'the header and keys back once the watch lists again', timeoutMs: 10_000 },
			);
			expect(label(con.store)).toBe('● live');
		} finally {
			con.close();
		}
	});
});

describe('refusedNeed', () => {
	it("reads the right from ctpool's sentence and from the API server's", () => {
		for (const leases of ['leases', 'leases.coordination.k8s.io'])
			expect(
				refusedNeed(
					`claim: forbidden: cannot create ${leases} in namespace team-a (ask for …)`,
					'corral',
				),
			).toEqual({
				need: { verb: 'create', resource: 'leases', group: 'coordination.k8s.io' },
				namespace: 'team-a',
			});
		expect(refusedNeed('forbidden: cannot create pods/exec in namespace x (…)', 'corral')).toEqual({
			need: { verb: 'create', resource: 'pods', subresource: 'exec' },
			namespace: 'x',
		});
		expect(
			refusedNeed(
				'forbidden: pods "a" is forbidden: User "system:serviceaccount:c:x" cannot delete resource "pods" in API group "" in the namespace "c"',
				'corral',
			),
		).toEqual({ need: { verb: 'delete', resource: 'pods' }, namespace: 'c' });
		expect(refusedNeed('unauthorized: the cluster rejected the credentials', 'corral')).toBe(null);
	});
});
