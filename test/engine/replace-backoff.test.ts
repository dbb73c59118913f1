/** No replace storm against the simulated cluster: a pool whose image cannot be pulled. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, readPool, reconcile } from '../../source/engine/index.js';
import { REPLACED_ANNOTATION } from '../../source/pool/names.js';
import { parseReplaceRecord } from '../../source/pool/replace-backoff.js';
import { ctpool } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

const BROKEN = 'registry.invalid/desktop:1';

function replaceCount(member: string): number {
	const pvc = c.sim.store.get('persistentvolumeclaims', 'corral', `${member}-data`);
	return parseReplaceRecord(pvc?.metadata.annotations)?.count ?? 0;
}

function stopEvents(): number {
	return c.sim.store
		.list('events', { namespace: 'corral' })
		.filter((e) => (e as { reason?: string }).reason === 'ReplaceStopped').length;
}

describe('replace backoff', () => {
	it('replaces a failing pool with growing waits, then stops and reports it once', async () => {
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
		for (const m of members) expect(replaceCount(m)).toBe(1);
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
		for (const m of members) expect(replaceCount(m)).toBe(2);
		await allFailed();

		// 20 s later the whole pool has failed the same way twice after replaces: stop, report once
		offset += 20_000;
		expect(stopEvents()).toBe(0);
		const stopped = await reconcile(ctx, 'broken');
		expect(stopped.actions).toEqual([]);
		expect(stopped.errors).toEqual([
			'pool broken: 3 of 3 members failed the same way (ImagePullBackOff) after 2 replaces; replacing is stopped until the definition changes or members recover: the pool image cannot be pulled; change it with: ctpool apply broken --image <image>',
		]);
		expect(stopped.status.errors).toEqual(stopped.errors);
		await waitFor(() => stopEvents() === 1, 'the ReplaceStopped Event');
		const event = c.sim.store
			.list('events', { namespace: 'corral' })
			.find((e) => (e as { reason?: string }).reason === 'ReplaceStopped') as {
			type?: string;
			involvedObject?: { kind?: string; name?: string };
		};
		expect(event.type).toBe('Warning');
		expect(event.involvedObject).toMatchObject({
			kind: 'ConfigMap',
			name: 'corral-vdi-ctpool-broken',
		});

		// ctpool status says it among the errors of the last reconcile
		const shown = await ctpool([
			'status',
			'broken',
			'-n',
			'corral',
			'--kubeconfig',
			c.sim.kubeconfigPath,
		]);
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
		expect(stopEvents()).toBe(1);

		// a new definition ends it: the drifted members are replaced, the count starts afresh
		const fixed = await apply(ctx, 'broken', poolSpec({ size: 3, maxUnavailable: 3 }));
		expect(fixed.actions.filter((a) => a.step === 'replace' && a.ok)).toHaveLength(3);
		expect(fixed.errors).toEqual([]);
		for (const m of members) {
			const pvc = c.sim.store.get('persistentvolumeclaims', 'corral', `${m}-data`);
			expect(pvc?.metadata.annotations?.[REPLACED_ANNOTATION]).toBeUndefined();
		}
	});

	it('a crashing image: CrashLoopBackOff on every member stops the replacing the same way', async () => {
		let offset = 0;
		const ctx = c.context({ now: () => Date.now() + offset });
		const looping = async () =>
			waitFor(async () => {
				const snap = await readPool(ctx, 'crash');
				return snap.members.every(
					(m) => m.state === 'Failed' && m.message.startsWith('CrashLoopBackOff'),
				);
			}, 'every member in CrashLoopBackOff');
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
			'pool crash: 2 of 2 members failed the same way (CrashLoopBackOff) after 2 replaces; replacing is stopped until the definition changes or members recover: fix the cause, or change the definition with ctpool apply crash',
		]);
	});
});
