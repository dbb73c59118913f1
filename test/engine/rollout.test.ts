/**
 * The rollout (issue 24, findings 2 and 3), on the simulated cluster and the real control
 * plane:
 * - without maxUnavailable, one apply replaces every unclaimed drifted member (the seed);
 * - with it, the replaces go in waves: at no write in the cluster's timeline are more than
 *   maxUnavailable unclaimed members down; a one-shot `apply` carries the rollout to its end
 *   wave by wave with progress lines, `--no-wait` leaves it to a watching reconciler; the
 *   members waiting for their wave stay claimable with the old image (current ones first),
 *   so idle desktops are never "exhausted"; claimed members stay until released;
 * - the drift of a member names only what changed (`memory 64Mi -> 32Mi`, not `cpu 1 -> 1`
 *   or `storageClass standard -> ""`), in the status and in the audit of the replace.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPoolController } from '../../source/controller/pool-controller.js';
import {
	apply,
	claim,
	createEngine,
	readAudit,
	readDefinition,
	readPool,
	reconcile,
	release,
	writeDefinition,
} from '../../source/engine/index.js';
import { startResilientWatch } from '../../source/kube/resilient-watch.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { parseStatus } from '../../source/pool/status.js';
import { ctpool } from '../commands/capture.js';
import { itSim, startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { waitReady } from './fixtures.js';

const NEW_IMAGE = 'ghcr.io/example/desktop:2';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

function pod(name: string): Promise<KubeObject | undefined> {
	return c.api.get('pods', name);
}

function ready(p: KubeObject | undefined): boolean {
	const status = p?.status as { conditions?: Array<{ type: string; status: string }> } | undefined;
	return (
		p !== undefined &&
		!p.metadata.deletionTimestamp &&
		(status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True')
	);
}

/**
 * Records, after every change of a pod of the pool (a watch hears each one, in the order the
 * cluster made them), how many of the given members are down.
 */
async function recordDown(pool: string, members: readonly string[]) {
	const timeline: number[] = [];
	const pods = new Map<string, KubeObject>();
	const down = () => members.filter((m) => !ready(pods.get(m))).length;
	let listed = false;
	const recording = startResilientWatch(
		c.kube,
		{ plural: 'pods', kind: 'Pod', apiVersion: 'v1', namespace: c.ns },
		{ labelSelector: `corral.dev/vdi-ct-pool=${pool}` },
		{
			onReset(objects) {
				pods.clear();
				for (const o of objects as KubeObject[]) pods.set(o.metadata.name, o);
				timeline.push(down());
				listed = true;
			},
			onChange(op, object) {
				const o = object as KubeObject;
				if (op === 'delete') pods.delete(o.metadata.name);
				else pods.set(o.metadata.name, o);
				timeline.push(down());
			},
			onState() {},
		},
	);
	await waitFor(() => listed, `the pods of ${pool} listed`);
	return { timeline, stop: () => recording.stop() };
}

/** A Ready pool of size members, some claimed: the claimed members and pod uids, the unclaimed names. */
async function readyPool(pool: string, size: number, users: readonly string[], over = {}) {
	const ctx = c.context();
	await apply(ctx, pool, poolSpec({ size, ...over }));
	await waitReady(ctx, pool, size);
	const claimed = new Map<string, string | undefined>();
	for (const u of users) {
		const m = (await claim(ctx, pool, u)).member;
		claimed.set(m, (await pod(m))?.metadata.uid);
	}
	const members = Array.from({ length: size }, (_, i) => `${pool}-${i + 1}`);
	return { ctx, claimed, unclaimed: members.filter((m) => !claimed.has(m)) };
}

/** The source hash of poolSpec with the new image. */
const TARGET = sourceHash(sourceFields(poolSpec({ image: NEW_IMAGE })));

function onTarget(p: KubeObject | undefined): boolean {
	return ready(p) && p?.metadata.labels?.['corral.dev/vdi-ct-source'] === TARGET;
}

describe('a rollout', { timeout: 150_000 }, () => {
	it('without maxUnavailable: one apply replaces every unclaimed drifted member (the seed), the claimed one stays', async () => {
		const { ctx, claimed, unclaimed } = await readyPool('seed', 6, ['alice@example.com']);
		const r = await apply(ctx, 'seed', poolSpec({ size: 6, image: NEW_IMAGE }));
		expect(r.errors).toEqual([]);
		expect(
			r.actions
				.filter((a) => a.step === 'replace' && a.ok)
				.map((a) => a.member)
				.sort(),
		).toEqual([...unclaimed].sort());
		expect(r.heldBack).toBe(0);
		for (const m of unclaimed)
			expect((await pod(m))?.metadata.labels?.['corral.dev/vdi-ct-source']).toBe(TARGET);
		for (const [m, uid] of claimed) expect((await pod(m))?.metadata.uid).toBe(uid);
		// the claimed one says what it waits for
		const row = r.status.members.find((m) => claimed.has(m.name));
		expect(row).toMatchObject({
			drifted: true,
			drift: `image ghcr.io/example/desktop:1 -> ${NEW_IMAGE}`,
			message: 'old image, replaced after release',
		});
	});

	it('in waves, a one-shot apply carries it to the end wave by wave, never more than maxUnavailable down', async () => {
		const users = ['alice@example.com', 'bob@example.com'];
		const { claimed, unclaimed } = await readyPool('wave', 8, users);
		const rec = await recordDown('wave', unclaimed);
		let r: Awaited<ReturnType<typeof ctpool>>;
		try {
			r = await ctpool(['apply', 'wave', '--image', NEW_IMAGE, '--max-unavailable', '2', ...c.kc]);
		} finally {
			rec.stop();
		}
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		// progress: the first wave, a line per wait, each later wave's steps and counts, the end
		expect(r.stdout).toMatch(new RegExp(`^pool wave: .*; rolling 2/6 to ${NEW_IMAGE}$`, 'm'));
		expect(r.stdout).toMatch(
			/^rollout of pool wave: waiting for the wave under way to be Ready; 4 drifted members wait, claimable with the old image$/m,
		);
		expect(r.stdout).toMatch(/^wave 2: wave-\d replaced$/m);
		expect(r.stdout).toMatch(/^wave 3: pool wave: desired 8, /m);
		expect(r.stdout).toContain(
			`rollout of pool wave done in 3 waves: every unclaimed member is on ${NEW_IMAGE} and Ready; 2 claimed members on the old image follow when released\n`,
		);
		// done when the command ends: every unclaimed member on the new source and Ready
		const now = await c.api.byName('pods');
		for (const m of unclaimed) expect(onTarget(now.get(m))).toBe(true);
		for (const [m, uid] of claimed) expect(now.get(m)?.metadata.uid).toBe(uid);
		expect(Math.max(...rec.timeline)).toBe(2);
	});

	it('in waves, a one-shot reconcile carries it to the end as apply does', async () => {
		const { ctx, unclaimed } = await readyPool('again', 3, [], { maxUnavailable: 1 });
		await writeDefinition(ctx, 'again', poolSpec({ size: 3, maxUnavailable: 1, image: NEW_IMAGE }));
		const r = await ctpool(['reconcile', 'again', ...c.kc]);
		expect(r.stderr).toBe('');
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/^wave 3: again-3 replaced$/m);
		expect(r.stdout).toContain(
			`rollout of pool again done in 3 waves: every unclaimed member is on ${NEW_IMAGE} and Ready\n`,
		);
		const now = await c.api.byName('pods');
		for (const m of unclaimed) expect(onTarget(now.get(m))).toBe(true);
	});

	itSim(
		'in waves, a new image that fails halts the one-shot rollout: the members on the old image stay claimable',
		'the simulated kubelet fails pulls of *:broken; kwok pulls nothing',
		async () => {
			const { ctx } = await readyPool('bad', 4, [], { maxUnavailable: 1 });
			const r = await ctpool([
				'apply',
				'bad',
				'--image',
				'ghcr.io/example/desktop:broken',
				...c.kc,
			]);
			expect(r.code).toBe(1);
			expect(r.stderr).toMatch(
				/^ctpool: rollout halted: bad-1 failed on the new source \((ErrImagePull|ImagePullBackOff)[^)]*\); the 3 members on the old image stay as they are; fix the definition \(ctpool apply bad --image <image>\) or see ctpool status bad\n$/,
			);
			const snap = await readPool(ctx, 'bad');
			expect(snap.counts).toMatchObject({ claimableNow: 3, exhausted: false });
			expect(snap.members.filter((m) => m.waitsForWave && m.free).map((m) => m.name)).toEqual([
				'bad-2',
				'bad-3',
				'bad-4',
			]);
		},
	);

	it('in waves, members waiting for theirs stay claimable with the old image (current ones first): never exhausted while idle desktops wait', async () => {
		const { ctx } = await readyPool('idle', 4, [], { maxUnavailable: 1 });
		// one reconcile: the first wave (idle-1) goes, three wait
		const first = await apply(
			ctx,
			'idle',
			poolSpec({ size: 4, maxUnavailable: 1, image: NEW_IMAGE }),
		);
		expect(first.status).toMatchObject({ exhausted: false, free: 4 });
		expect(first.heldBack).toBe(3);
		expect(first.status.members.slice(1).map((m) => m.message)).toEqual(
			Array(3).fill('old image, replaced after release or in its wave'),
		);
		await waitFor(async () => onTarget(await pod('idle-1')), 'idle-1 on the new image');
		// the member on the new image goes first, then the old ones, which are not replaced
		// under their holders
		const claims = [];
		for (const u of ['alice', 'bob', 'carol', 'dave'])
			claims.push((await claim(ctx, 'idle', `${u}@example.com`)).member);
		expect(claims).toEqual(['idle-1', 'idle-2', 'idle-3', 'idle-4']);
		const again = await reconcile(ctx, 'idle');
		expect(again.actions).toEqual([]);
		expect(again.status).toMatchObject({ claimed: 4, free: 0, exhausted: true });
		// released: replaced from the new source then and there
		await release(ctx, 'idle', 'idle-2', 'bob@example.com');
		expect((await pod('idle-2'))?.metadata.labels?.['corral.dev/vdi-ct-source']).toBe(TARGET);
	});

	it('in waves with --no-wait, apply replaces the first wave and a watching reconciler goes on', async () => {
		const users = ['alice@example.com', 'bob@example.com'];
		const { ctx, claimed, unclaimed } = await readyPool('roll', 20, users);
		const rec = await recordDown('roll', unclaimed);
		const mark = c.mark();
		const pools = startPoolController({
			kube: c.kube,
			namespace: c.ns,
			pool: 'roll',
			resyncMs: 60_000,
			settleMs: 50,
			engine: createEngine(c.kube, { actor: 'reconciler', deleteTimeoutMs: 20_000 }),
		});
		try {
			const r = await ctpool([
				'apply',
				'roll',
				'--image',
				NEW_IMAGE,
				'--max-unavailable',
				'3',
				'--no-wait',
				...c.kc,
			]);
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
			expect(r.stdout).toMatch(new RegExp(`rolling \\d+/18 to ${NEW_IMAGE}`));
			expect(r.stdout).toMatch(
				/^rollout of pool roll: \d+ drifted members wait for later waves, claimable with the old image; a watching reconciler goes on with them \(ctpool reconcile roll -n \S+ --watch, or the one in the cluster\)$/m,
			);
			expect(r.stdout).not.toContain('wave 2');
			const definition = await readDefinition(ctx, 'roll');
			expect(definition.spec.maxUnavailable).toBe(3);
			// the reconciler's metrics show the rollout while it runs
			await waitFor(
				async () =>
					(await pools.metrics.registry.metrics()).includes(
						`ctpool_pool_rollout_total{namespace="${c.ns}",pool="roll"} 18`,
					) || undefined,
				'the rollout in the metrics',
			);
			await waitFor(
				async () => {
					const now = await c.api.byName('pods');
					return unclaimed.every((m) => onTarget(now.get(m))) || undefined;
				},
				{ what: 'every unclaimed member on the new image and Ready', timeoutMs: 90_000 },
			);
			await waitFor(async () => {
				const status = parseStatus((await readDefinition(ctx, 'roll')).configMap.data?.status);
				return (status !== null && status.rollout === undefined) || undefined;
			}, 'the rollout gone from the status');
		} finally {
			rec.stop();
			await pools.stop();
		}
		expect(Math.max(...rec.timeline)).toBe(3);
		// each unclaimed member replaced once, no claimed one touched
		const podDeletes = (await c.ctpoolMutations(mark))
			.filter((m) => m.resource === 'pods' && m.verb === 'delete' && m.changed)
			.map((m) => m.name);
		expect(podDeletes.sort()).toEqual([...unclaimed].sort());
		for (const [m, uid] of claimed) expect((await pod(m))?.metadata.uid).toBe(uid);

		// the claimed ones move to the new image when released
		const [alice] = [...claimed.keys()];
		await release(ctx, 'roll', alice!, 'alice@example.com');
		const after = await pod(alice!);
		expect(after?.metadata.uid).not.toBe(claimed.get(alice!));
		expect(after?.metadata.labels?.['corral.dev/vdi-ct-source']).toBe(TARGET);
	});
});

describe('drift', { timeout: 90_000 }, () => {
	it('names only what changed, in the status, ctpool status and the audit of the replace', async () => {
		const ctx = c.context();
		await apply(ctx, 'mem', poolSpec({ size: 2, memory: '64Mi' }));
		await waitReady(ctx, 'mem', 2);
		await claim(ctx, 'mem', 'alice@example.com');
		const r = await apply(ctx, 'mem', poolSpec({ size: 2, memory: '32Mi' }));
		expect(r.errors).toEqual([]);
		// the claimed member stays, and its row names the one change
		const held = r.status.members.find((m) => m.holder === 'alice@example.com');
		expect(held).toMatchObject({ drifted: true, drift: 'memory 64Mi -> 32Mi' });
		const status = await ctpool(['status', 'mem', '-o', 'json', ...c.kc]);
		const row = JSON.parse(status.stdout).members.find(
			(m: { holder: string }) => m.holder === 'alice@example.com',
		);
		expect(row.drift).toBe('memory 64Mi -> 32Mi');
		const table = await ctpool(['status', 'mem', ...c.kc]);
		expect(table.stdout).toMatch(/drift: memory 64Mi -> 32Mi$/m);
		// the replaced one: the audit says what changed, and only that
		const replaced = r.actions.find((a) => a.step === 'replace');
		expect(replaced?.ok).toBe(true);
		await waitFor(async () => {
			const trail = await readAudit(ctx, { pool: 'mem', action: 'replace' });
			return trail.entries.find((e) => e.action === 'replace') ?? undefined;
		}, 'the audit of the replace').then((e) => {
			expect(e.detail).toContain('(memory 64Mi -> 32Mi)');
			expect(e.detail).not.toMatch(/cpu|storageClass/);
		});
	});
});
