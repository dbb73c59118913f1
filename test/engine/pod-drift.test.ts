/**
 * Drift from what is really there: a member whose pod no longer matches what its source
 * makes (image, cpu, memory, privileged, command) has drifted, says what differs, and is
 * replaced like any drifted member, never while claimed.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, buildPod, claim, reconcile } from '../../source/engine/index.js';
import { type PoolWatch, startPoolWatch } from '../../source/kube/pool-watch.js';
import { memberView, poolRuleInputs } from '../../source/pool/member-state.js';
import type { PodObject } from '../../source/pool/objects.js';
import type { MemberRow } from '../../source/tui/model/member-row.js';
import {
	type ConsoleStore,
	createConsoleStore,
	currentPool,
} from '../../source/tui/store/store.js';
import { ctpool } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { describeKubectl, kubectl } from '../support/kubectl.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { waitReady } from './fixtures.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');

describe('pod drift in the pool model', () => {
	const spec = poolSpec({ size: 1, image: 'desktop:2', cpu: '2', memory: '1Gi' });
	const view = (change: (pod: PodObject) => void) => {
		const pod = JSON.parse(JSON.stringify(buildPod('desk', 'desk-1', 'corral', spec))) as PodObject;
		change(pod);
		return memberView({ name: 'desk-1', index: 1, pod, pvc: null }, poolRuleInputs(1, spec), NOW);
	};
	const ct = (pod: PodObject) =>
		pod.spec!.containers![0]! as Required<NonNullable<PodObject['spec']>>['containers'][number] & {
			resources: { limits: Record<string, string>; requests: Record<string, string> };
		};

	it('a pod as its source makes it has not drifted', () => {
		expect(view(() => {})).toMatchObject({ drifted: false, drift: [] });
		// The same quantities written another way are the same.
		expect(
			view((p) => {
				ct(p).resources.limits.memory = '1024Mi';
				ct(p).resources.requests.cpu = '2000m';
			}),
		).toMatchObject({ drifted: false });
	});

	it.each([
		[
			'image',
			(p: PodObject) => {
				ct(p).image = 'other:9';
			},
			'image: pool desktop:2, pod other:9',
		],
		[
			'cpu',
			(p: PodObject) => {
				ct(p).resources.limits.cpu = '1';
			},
			'cpu: pool 2, pod 1',
		],
		[
			'memory',
			(p: PodObject) => {
				ct(p).resources.requests.memory = '2Gi';
			},
			'memory: pool 1Gi, pod 2Gi (requests)',
		],
		[
			'privileged',
			(p: PodObject) => {
				ct(p).securityContext = { privileged: true };
			},
			'privileged: pool false, pod true',
		],
		[
			'command',
			(p: PodObject) => {
				ct(p).command = ['sleep', '60'];
			},
			'command: pool sleep infinity, pod sleep 60',
		],
	])('a changed %s is drift, saying what differs', (_what, change, says) => {
		expect(view(change)).toMatchObject({ drifted: true, drift: [says], free: false });
	});
});

describeKubectl('kubectl set image on a member', () => {
	let c: TestCluster;
	let store: ConsoleStore;
	let watch: PoolWatch;
	/** The row of desk-3 in the very state the first batch with its new image made. */
	let seen: { row: MemberRow | undefined } | null = null;

	beforeAll(async () => {
		c = await startTestCluster();
		const ctx = c.context();
		await apply(ctx, 'desk', poolSpec({ size: 3 }));
		await waitReady(ctx, 'desk', 3);
		store = createConsoleStore({ session: { namespace: c.ns, actor: 'admin' }, pool: 'desk' });
		watch = startPoolWatch(
			c.kube,
			{ namespace: c.ns, batchMs: 10 },
			{
				onBatch: (changes) => {
					store.getState().applyBatch(changes);
					const changed = changes.some((ch) =>
						(ch.op === 'reset' ? ch.objects : [ch.object]).some(
							(o) =>
								ch.kind === 'pods' &&
								o.metadata?.name === 'desk-3' &&
								(o as PodObject).spec?.containers?.[0]?.image === 'other:9',
						),
					);
					if (changed && !seen)
						seen = { row: currentPool(store.getState())?.rows.find((r) => r.name === 'desk-3') };
				},
				onConnection: (o) => store.getState().setConnection(o),
			},
		);
	});
	afterAll(async () => {
		watch?.stop();
		await c?.close();
	});

	it('shows as drift with what differs within one watch event, in the status, and is replaced', async () => {
		const opts = { kubeconfig: c.kubeconfigPath };
		const r = await kubectl(['set', 'image', 'pod/desk-3', 'ct=other:9', '-n', c.ns], opts);
		expect(r.stderr).toBe('');
		await waitFor(() => seen ?? undefined, 'the batch with the new image');
		expect(seen!.row).toMatchObject({
			drifted: true,
			drift: ['image: pool ghcr.io/example/desktop:1, pod other:9'],
			free: false,
		});
		const status = await ctpool(['status', 'desk', '-o', 'json', ...c.kc]);
		const row = JSON.parse(status.stdout).members.find(
			(m: { name: string }) => m.name === 'desk-3',
		);
		expect(row).toMatchObject({
			drifted: true,
			drift: 'image: pool ghcr.io/example/desktop:1, pod other:9',
		});
		const table = await ctpool(['status', 'desk', ...c.kc]);
		expect(table.stdout).toMatch(
			/desk-3 .*drifted.*drift: image: pool ghcr\.io\/example\/desktop:1, pod other:9/,
		);
		// Unclaimed: replaced from the current source.
		const result = await reconcile(c.context(), 'desk');
		expect(result.actions.map((a) => [a.member, a.step, a.ok])).toEqual([
			['desk-3', 'replace', true],
		]);
		const pod = (await c.api.get('pods', 'desk-3')) as KubeObject & {
			spec: { containers: Array<{ image: string }> };
		};
		expect(pod.spec.containers[0]!.image).toBe('ghcr.io/example/desktop:1');
	});

	it('a claimed member with another image is left alone', async () => {
		const ctx = c.context();
		await waitReady(ctx, 'desk', 3);
		const won = await claim(ctx, 'desk', 'alice@example.com');
		const opts = { kubeconfig: c.kubeconfigPath };
		await kubectl(['set', 'image', `pod/${won.member}`, 'ct=other:9', '-n', c.ns], opts);
		const result = await reconcile(ctx, 'desk');
		expect(result.actions).toEqual([]);
		expect(result.status.members.find((m) => m.name === won.member)).toMatchObject({
			drifted: true,
			holder: 'alice@example.com',
		});
	});
});
