/** No replace storm: a pool whose image cannot be pulled, or whose containers crash. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, readPool, reconcile } from '../../source/engine/index.js';
import { REPLACED_ANNOTATION } from '../../source/pool/names.js';
import { parseReplaceRecord } from '../../source/pool/replace-backoff.js';
import { ctpool } from '../commands/capture.js';
import { itSim, startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

const BROKEN = 'registry.invalid/desktop:1';

async function replaceCount(member: string): Promise<number> {
	const pvc = await c.api.get('persistentvolumeclaims', `${member}-data`);
	return parseReplaceRecord(pvc?.metadata.annotations)?.count ?? 0;
}

async function stopEvents(): Promise<KubeObject[]> {
	return (await c.api.list('events')).filter(
		(e) => (e as { reason?: string }).reason === 'ReplaceStopped',
	);
}

type Pod = KubeObject & {
	spec: { containers: Array<{ name: string; image: string }> };
	status?: {
		phase?: string;
		conditions?: Array<{ type: string; status: string }>;
		containerStatuses?: Array<{ state?: { waiting?: { reason?: string } } }>;
	};
};

/**
 * On the real control plane, does what a kubelet does with a container that exits at once
 * (kwok's nodes run every container for good): the pool's pods that kwok reported Running
 * are reported crashed and in CrashLoopBackOff, in the status a kubelet writes.
 * The simulated cluster's kubelet crashes them itself.
 */
async function crashRunningPods(pool: string): Promise<void> {
	if (c.kind === 'sim') return;
	const pods = await c.api.list<Pod>('pods', { labelSelector: `corral.dev/vdi-ct-pool=${pool}` });
	for (const pod of pods) {
		const looping =
			pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff';
		if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running' || looping) continue;
		const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
		const notReady = {
			status: 'False',
			reason: 'ContainersNotReady',
			message: 'containers with unready status: [ct]',
			lastTransitionTime: now,
		};
		const ct = pod.spec.containers[0]!;
		await c.api.patch(
			'pods',
			pod.metadata.name,
			{
				status: {
					conditions: [
						{ type: 'Ready', ...notReady },
						{ type: 'ContainersReady', ...notReady },
					],
					containerStatuses: [
						{
							name: ct.name,
							image: ct.image,
							imageID: '',
							ready: false,
							started: false,
							restartCount: 3,
							state: {
								waiting: {
									reason: 'CrashLoopBackOff',
									message: `back-off 40s restarting failed container=${ct.name} pod=${pod.metadata.name}_${c.ns}(${pod.metadata.uid})`,
								},
							},
							lastState: {
								terminated: { exitCode: 1, reason: 'Error', startedAt: now, finishedAt: now },
							},
						},
					],
				},
			},
			{ subresource: 'status', type: 'application/strategic-merge-patch+json' },
		);
	}
}

describe('replace backoff', () => {
	itSim(
		'replaces a failing pool with growing waits, then stops and reports it once',
		"an image that cannot be pulled: kwok's nodes run any image",
		async () => {
			let offset = 0;
			const ctx = c.context({ now: () => Date.now() + offset });
			const members = ['broken-1', 'broken-2', 'broken-3'];
			const allFailed = async () =>
				waitFor(async () => {
					const snap = await readPool(ctx, 'broken');
					return snap.members.every((m) => m.state === 'Failed' && /ImagePull/.test(m.message));
				}, 'every member Failed with an image pull error');

			await apply(ctx, 'broken', poolSpec({ size: 3, image: BROKEN }));
			await allFailed();

			// the first failure: replaced at once, the count recorded on the new PVC
			const first = await reconcile(ctx, 'broken');
			expect(first.actions.map((a) => [a.member, a.step, a.ok])).toEqual(
				members.map((m) => [m, 'replace', true]),
			);
			for (const m of members) expect(await replaceCount(m)).toBe(1);
			await allFailed();

			// failed again after a replace: held for 10 s, said in the errors
			const held = await reconcile(ctx, 'broken');
			expect(held.actions).toEqual([]);
			expect(held.errors).toHaveLength(3);
			expect(held.errors[0]).toMatch(
				/^broken-1: failed again after 1 replace \(ImagePullBackOff\); the next replace waits until /,
			);

			offset += 10_000;
			const second = await reconcile(ctx, 'broken');
			expect(second.actions.filter((a) => a.step === 'replace' && a.ok)).toHaveLength(3);
			for (const m of members) expect(await replaceCount(m)).toBe(2);
			await allFailed();

			// 20 s later the whole pool has failed the same way twice after replaces: stop, report once
			offset += 20_000;
			expect(await stopEvents()).toHaveLength(0);
			const stopped = await reconcile(ctx, 'broken');
			expect(stopped.actions).toEqual([]);
			expect(stopped.errors).toEqual([
				`pool broken: 3 of 3 members failed the same way (ImagePullBackOff) after 2 replaces; replacing is stopped until the definition changes or members recover: the pool image cannot be pulled; change it with: ctpool apply broken --image <image> -n ${c.ns}`,
			]);
			expect(stopped.status.errors).toEqual(stopped.errors);
			await waitFor(async () => (await stopEvents()).length === 1, 'the ReplaceStopped Event');
			const event = (await stopEvents())[0] as {
				type?: string;
				involvedObject?: { kind?: string; name?: string };
			};
			expect(event.type).toBe('Warning');
			expect(event.involvedObject).toMatchObject({
				kind: 'ConfigMap',
				name: 'corral-vdi-ctpool-broken',
			});

			// ctpool status says it among the errors of the last reconcile
			const shown = await ctpool(['status', 'broken', '-n', c.ns, ...c.kc]);
			expect(shown.stdout).toContain('errors of the last reconcile:');
			expect(shown.stdout).toContain(
				'pool broken: 3 of 3 members failed the same way (ImagePullBackOff) after 2 replaces; replacing is stopped',
			);

			// later reconciles: still stopped, the same error, no second Event (the members' messages
			// alternate between ErrImagePull and ImagePullBackOff, so the status itself may be written)
			offset += 600_000;
			const again = await reconcile(ctx, 'broken');
			expect(again.actions).toEqual([]);
			// nothing written, unless the kubelet moved a member between ErrImagePull and
			// ImagePullBackOff meanwhile (it alternates on each retry): then only the messages differ
			const messages = (st: typeof again.status) => st.members.map((m) => m.message);
			if (again.statusWritten) expect(messages(again.status)).not.toEqual(messages(stopped.status));
			expect(again.errors).toEqual(stopped.errors);
			expect(await stopEvents()).toHaveLength(1);

			// a new definition ends it: the drifted members are replaced, the count starts afresh
			const fixed = await apply(ctx, 'broken', poolSpec({ size: 3, maxUnavailable: 3 }));
			expect(fixed.actions.filter((a) => a.step === 'replace' && a.ok)).toHaveLength(3);
			expect(fixed.errors).toEqual([]);
			for (const m of members) {
				const pvc = await c.api.get('persistentvolumeclaims', `${m}-data`);
				expect(pvc?.metadata.annotations?.[REPLACED_ANNOTATION]).toBeUndefined();
			}
		},
	);

	it('a crashing image: CrashLoopBackOff on every member stops the replacing the same way', async () => {
		let offset = 0;
		const ctx = c.context({ now: () => Date.now() + offset });
		let seen = '';
		const looping = async () =>
			waitFor(
				async () => {
					await crashRunningPods('crash');
					const snap = await readPool(ctx, 'crash');
					seen = JSON.stringify(snap.members.map((m) => [m.name, m.state, m.message]));
					return snap.members.every(
						(m) => m.state === 'Failed' && m.message.startsWith('CrashLoopBackOff'),
					);
				},
				{ what: 'every member in CrashLoopBackOff', timeoutMs: 60_000, detail: () => seen },
			);
		await apply(ctx, 'crash', poolSpec({ size: 2, image: 'ghcr.io/example/desktop:crashing' }));
		await looping();
		for (const wait of [0, 10_000]) {
			offset += wait;
			const r = await reconcile(ctx, 'crash');
			expect(r.actions.filter((a) => a.step === 'replace' && a.ok)).toHaveLength(2);
			await looping();
		}
		offset += 20_000;
		const stopped = await reconcile(ctx, 'crash');
		expect(stopped.actions).toEqual([]);
		expect(stopped.errors).toEqual([
			`pool crash: 2 of 2 members failed the same way (CrashLoopBackOff) after 2 replaces; replacing is stopped until the definition changes or members recover: fix the cause, or change the definition with ctpool apply crash -n ${c.ns}`,
		]);
	});
});
