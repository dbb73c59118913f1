/** The console's operations against a simulated cluster, through a kubeconfig and the real client. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, createEngineContext, poolWatchFeeds } from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { type PoolWatch, startPoolWatch } from '../../source/kube/pool-watch.js';
import { deniedCommands } from '../../source/tui/commands/access.js';
import { Command } from '../../source/tui/commands/keys.js';
import {
	createEngineOperations,
	type EngineOperations,
} from '../../source/tui/session/engine-operations.js';
import {
	type ConsoleStore,
	createConsoleStore,
	currentPool,
} from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

let sim: TestSim;
let kube: Kube;
let store: ConsoleStore;
let ops: EngineOperations;
let watch: PoolWatch;
let feeds: ReturnType<typeof poolWatchFeeds>;

beforeAll(async () => {
	sim = await startTestSim();
	kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
	await apply(createEngineContext(kube, { actor: 'test' }), 'desk', poolSpec({ size: 3 }));
	store = createConsoleStore({
		session: { namespace: 'corral', actor: 'admin@example.com' },
		pool: 'desk',
	});
	// the console's watch, teed into its claims' feeds (as run.tsx does)
	feeds = poolWatchFeeds();
	watch = startPoolWatch(
		kube,
		{ namespace: 'corral', batchMs: 10 },
		{
			onBatch: (c) => {
				feeds.sink.onBatch(c);
				store.getState().applyBatch(c);
			},
			onConnection: (o, byKind) => {
				feeds.sink.onConnection(o, byKind);
				store.getState().setConnection(o);
			},
		},
	);
	ops = createEngineOperations({
		store,
		kube,
		namespace: 'corral',
		actor: 'admin@example.com',
		engine: { deleteTimeoutMs: 20_000 },
		loopIntervalMs: 60_000,
		claimFeed: feeds.feed,
	});
	await waitFor(() => currentPool(store.getState())?.counts.ready === 3, {
		what: '3 ready members',
	});
	await waitFor(() => feeds.feed('corral', 'desk').synced(), { what: "the claims' feed synced" });
});

afterAll(async () => {
	ops?.close();
	watch?.stop();
	await sim?.cleanup();
});

const row = (name: string) => currentPool(store.getState())?.rows.find((r) => r.name === name);
const idle = () => waitFor(() => store.getState().busy === null, { what: 'the action to end' });

describe('engine operations', () => {
	it('claims from its watch (nothing read before the Lease create): the holder appears through the watch, the status line and log say so', async () => {
		const mark = sim.cluster.audit.mark();
		ops.claim('desk', 'alice@example.com');
		expect(store.getState().busy?.label).toBe('claiming in desk for alice@example.com');
		await idle();
		expect(store.getState().status).toMatchObject({
			level: 'ok',
			text: 'desk-1 claimed by alice@example.com',
		});
		await waitFor(() => row('desk-1')?.holder === 'alice@example.com', {
			what: 'the holder in the table',
		});
		expect(store.getState().selected).toBe('desk-1');
		expect(store.getState().log.some((e) => e.action === 'claim' && e.outcome === 'ok')).toBe(true);
		// the display copy and the Event follow the answer; the console waits for them as it exits
		await ops.flushWrites(10_000);
		const requests = sim.cluster.audit
			.since(mark)
			.requests.filter((r) => r.verb !== 'watch' && r.resource !== 'selfsubjectreviews')
			.map((r) => `${r.verb} ${r.resource}`);
		// (a first claim of the process asks who it is, once)
		expect(requests.slice(0, 1)).toEqual(['create leases']);
		expect(requests.sort()).toEqual([
			'create events',
			'create leases',
			'patch persistentvolumeclaims',
		]);
	});

	it('force-releases: the member is made again, Ready with no holder', async () => {
		const before = row('desk-1');
		const oldPvc = store.getState().memberObjects('desk-1').pvc?.metadata.uid;
		expect(oldPvc).toBeTruthy();
		ops.release('desk', 'desk-1');
		await idle();
		expect(store.getState().status?.level).toBe('ok');
		expect(store.getState().status?.text).toContain(
			'released desk-1 (claimed by alice@example.com)',
		);
		await waitFor(
			() =>
				row('desk-1')?.state === 'Ready' &&
				!row('desk-1')?.hasLease &&
				row('desk-1') !== before &&
				(row('desk-1')?.createdAt ?? 0) >= (before?.createdAt ?? 0),
			{ what: 'desk-1 made again, ready and free' },
		);
		// its data PVC was destroyed and made again
		const pvc = store.getState().memberObjects('desk-1').pvc;
		expect(pvc?.metadata.uid).toBeTruthy();
		expect(pvc?.metadata.uid).not.toBe(oldPvc);
		expect(store.getState().log.some((e) => e.action === 'release' && e.outcome === 'ok')).toBe(
			true,
		);
	});

	it('reports a failure in the status line and the log without throwing', async () => {
		for (const who of ['a@example.com', 'b@example.com', 'c@example.com']) {
			ops.claim('desk', who);
			await idle();
		}
		ops.claim('desk', 'd@example.com');
		await idle();
		expect(store.getState().status).toMatchObject({ level: 'error' });
		expect(store.getState().status?.text).toContain(
			'pool has no free members (desired 3, claimed 3',
		);
		expect(store.getState().log.at(-1)).toMatchObject({ action: 'claim', outcome: 'error' });
	});

	it('toggles maintenance', async () => {
		ops.maintenance('desk', 'desk-2', true);
		await idle();
		await waitFor(() => row('desk-2')?.maintenance, { what: 'maintenance on' });
		ops.maintenance('desk', 'desk-2', false);
		await idle();
		await waitFor(() => row('desk-2')?.maintenance === false, { what: 'maintenance off' });
	});

	it('reconciles after a scale-up, and the live loop follows a later one by itself', async () => {
		await apply(createEngineContext(kube, { actor: 'test' }), 'desk', poolSpec({ size: 4 })).catch(
			() => {},
		);
		ops.reconcile('desk');
		await idle();
		await waitFor(() => row('desk-4')?.state === 'Ready', { what: 'desk-4 ready' });
		ops.toggleLoop('desk');
		expect(store.getState().loop.on).toBe(true);
		// a definition change made elsewhere (no reconcile): the loop sees it through the watch
		const ctx = createEngineContext(kube, { actor: 'test' });
		const { writeDefinition } = await import('../../source/engine/index.js');
		await writeDefinition(ctx, 'desk', poolSpec({ size: 5 }));
		await waitFor(() => row('desk-5')?.state === 'Ready', { what: 'desk-5 made by the loop' });
		// a pass that finds nothing to do leaves the log alone
		await waitFor(() => !store.getState().loop.running, { what: 'the loop at rest' });
		const passes = store.getState().log.filter((e) => e.action === 'reconcile').length;
		const lastRun = store.getState().loop.lastRun ?? 0;
		await kube.core.patchNamespacedPod({
			name: 'desk-1',
			namespace: 'corral',
			body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
		});
		await waitFor(
			() => (store.getState().loop.lastRun ?? 0) > lastRun && !store.getState().loop.running,
			{
				what: 'a loop pass after the change',
			},
		);
		expect(store.getState().log.filter((e) => e.action === 'reconcile').length).toBe(passes);
		ops.toggleLoop(null);
		expect(store.getState().loop.on).toBe(false);
		expect(store.getState().log.some((e) => e.action === 'create' && e.member === 'desk-5')).toBe(
			true,
		);
	});

	it('lists the recent events of a member', async () => {
		ops.loadEvents('desk-1');
		await waitFor(() => store.getState().details?.loading === false, { what: 'events' });
		const details = store.getState().details;
		expect(details?.error).toBeNull();
		expect(details?.events.length).toBeGreaterThan(0);
		expect(details?.events.some((e) => /desk-1/.test(e.object))).toBe(true);
	});

	it('bulk: force-releases every member asked for, reporting each; a failure stops none', async () => {
		for (const m of ['desk-1', 'desk-2']) expect(row(m)?.hasLease).toBe(true);
		store.getState().setMarks(['desk-1', 'desk-2', 'desk-4'], true);
		ops.bulk('desk', 'release', ['desk-1', 'other-1', 'desk-2'], '');
		expect(store.getState().busy?.label).toBe('force-release of 3 members');
		await idle();
		const status = store.getState().status;
		expect(status?.level).toBe('error');
		expect(status?.text).toContain(
			'force-release: 2 of 3 done (desk-1, desk-2); 1 failed: other-1:',
		);
		// the members done lose their marks; the others keep them
		expect(store.getState().marks).toEqual(new Set(['desk-4']));
		expect(store.getState().log.some((e) => e.member === 'other-1' && e.outcome === 'error')).toBe(
			true,
		);
		await waitFor(() => !row('desk-1')?.hasLease && !row('desk-2')?.hasLease, {
			what: 'both claims gone',
		});
	});

	it('bulk: maintenance with the reason typed, stored on each PVC', async () => {
		ops.bulk('desk', 'maintenance-on', ['desk-3', 'desk-4'], 'kernel upgrade');
		await idle();
		expect(store.getState().status).toMatchObject({
			level: 'ok',
			text: 'maintenance on: 2 of 2 done (desk-3, desk-4)',
		});
		await waitFor(
			() =>
				row('desk-3')?.maintenanceReason === 'kernel upgrade' &&
				row('desk-4')?.maintenanceReason === 'kernel upgrade',
			{ what: 'the reason on both' },
		);
		const pvc = await kube.core.readNamespacedPersistentVolumeClaim({
			name: 'desk-3-data',
			namespace: 'corral',
		});
		expect(pvc.metadata?.annotations?.['corral.dev/vdi-maintenance']).toBe('kernel upgrade');
		ops.bulk('desk', 'maintenance-off', ['desk-3', 'desk-4'], '');
		await idle();
		await waitFor(() => !row('desk-3')?.maintenance && !row('desk-4')?.maintenance, {
			what: 'maintenance off',
		});
	});

	it('follows a container log live through the API, sanitised; --previous of a running one says why not', async () => {
		ops.followLog('desk-1', false);
		await waitFor(() => store.getState().podLog?.phase === 'following', { what: 'the log open' });
		const pod = sim.cluster.store.get('pods', 'corral', 'desk-1') as {
			status?: { containerStatuses?: Array<{ containerID?: string }> };
		};
		const id = pod.status?.containerStatuses?.[0]?.containerID ?? '';
		expect(id).not.toBe('');
		sim.cluster.controllers.logs.write(id, 'hello \u001b]0;pwned\u0007from desk-1');
		await waitFor(
			() => store.getState().podLog?.lines.some((l) => l.includes('from desk-1')) === true,
			{ what: 'the new line' },
		);
		const line = store.getState().podLog?.lines.find((l) => l.includes('from desk-1')) ?? '';
		expect(line).not.toContain('\u001b');
		expect(line).not.toContain('\u0007');
		ops.stopLog();
		ops.followLog('desk-1', true);
		await waitFor(() => store.getState().podLog?.phase === 'error', { what: 'the refusal' });
		expect(store.getState().podLog).toMatchObject({ member: 'desk-1', previous: true });
		expect(store.getState().podLog?.error).toContain('previous terminated container');
		ops.stopLog();
	});

	it('the log view follows the container across a restart, and keeps the last lines across a replace (p shows them; issue 24, finding 9)', async () => {
		await waitFor(() => row('desk-2')?.state === 'Ready', { what: 'desk-2 Ready' });
		ops.followLog('desk-2', false);
		await waitFor(() => store.getState().podLog?.phase === 'following', { what: 'the log open' });
		const crashed = 'fatal: cannot write to /data: Input/output error; exiting with status 1';
		sim.cluster.controllers.crash('corral', 'desk-2');
		// the stream ends with the crash; the view waits, then follows the restarted container
		await waitFor(
			() => store.getState().podLog?.lines.some((l) => l.includes('container restarted')) === true,
			{ what: 'the restart line' },
		);
		const log = store.getState().podLog;
		expect(log?.member).toBe('desk-2');
		const at = log?.lines.findIndex((l) => l.includes('container restarted')) ?? -1;
		expect(log?.lines.slice(0, at)).toContain(crashed);
		expect(log?.lines[at]).toMatch(/── desk-2's container restarted \(restart \d+\) ──/);
		// the pod is deleted and made again: a new log, the old one kept for p
		const oldUid = store.getState().memberObjects('desk-2').pod?.metadata.uid;
		await kube.core.deleteNamespacedPod({
			name: 'desk-2',
			namespace: 'corral',
			gracePeriodSeconds: 0,
		});
		await waitFor(() => store.getState().memberObjects('desk-2').pod === null, {
			what: 'the pod gone',
		});
		ops.reconcile('desk');
		await idle();
		await waitFor(
			() => store.getState().podLog?.lines[0]?.includes('desk-2 was replaced') === true,
			{ what: 'the new pod followed' },
		);
		expect(store.getState().memberObjects('desk-2').pod?.metadata.uid).not.toBe(oldUid);
		expect(store.getState().podLog?.lines).not.toContain(crashed);
		ops.followLog('desk-2', true);
		const previous = store.getState().podLog;
		expect(previous).toMatchObject({ member: 'desk-2', previous: true, note: 'the replaced pod' });
		expect(previous?.lines).toContain(crashed);
		ops.stopLog();
	});

	it('finds the keys the identity lacks RBAC rights for', async () => {
		sim.cluster.config.deny = ['create pods/exec', 'delete pods'];
		try {
			const denied = await deniedCommands(kube, 'corral');
			expect(denied[Command.Console]).toContain('cannot create pods/exec in namespace corral');
			expect(denied[Command.Release]).toContain('cannot delete pods in namespace corral');
			expect(denied[Command.Reconcile]).toContain('cannot delete pods');
			expect(denied[Command.Claim]).toBeUndefined();
			expect(denied[Command.Maintenance]).toBeUndefined();
		} finally {
			sim.cluster.config.deny = [];
		}
	});

	it('reads the hint facts of the member on the details screen, again when its state changes', async () => {
		await waitFor(() => row('desk-1')?.state === 'Ready', { what: 'desk-1 Ready' });
		store.getState().selectMember('desk-1');
		store.getState().setScreen('details');
		ops.loadEvents('desk-1');
		// Ready: nothing to read
		expect(store.getState().hintInputs).toEqual({ member: 'desk-1', inputs: {} });
		sim.cluster.controllers.crash('corral', 'desk-1');
		const facts = await waitFor(
			() => {
				const log = store.getState().hintInputs?.inputs.log;
				return log && 'value' in log ? log.value : undefined;
			},
			{ what: 'the crash log read for the hint' },
		);
		expect(facts.at(-1)).toBe(
			'fatal: cannot write to /data: Input/output error; exiting with status 1',
		);
		store.getState().setScreen('members');
	});
});
