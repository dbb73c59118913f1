/**
 * Every suggested command runs as printed (issue 24, finding 5): the commands the console's
 * hints suggest for a set of member states (an image that cannot be pulled, a member that
 * does not fit, replacing stopped), and those `ctpool delete` names when members hold the
 * definition, are collected from the text and run word for word against the cluster, with
 * pools of the same names in the default namespace and in another. Each must parse and act
 * on the pool it was about, never on its namesake.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../source/kube/objects.js';
import { nodeRooms, type PoolSpec } from '../../source/pool/index.js';
import { memberHint, poolHint, sessionHintPool } from '../../source/tui/model/member-hint.js';
import { createConsoleStore } from '../../source/tui/store/store.js';
import { onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import { POOL_FLAGS, poolSpec } from '../support/pool-spec.js';
import { testNamespace } from '../support/real-cluster.js';
import { waitFor } from '../support/wait.js';
import { member, NOW, upserts } from '../tui/fixtures.js';
import { ctpool, defaultEnv } from './capture.js';

const OTHER = `${onRealCluster ? `${testNamespace()}-` : ''}sg-b`;
let c: TestCluster;
let home = '';

/** The commands in a text: `ctpool` and its words up to a `;`, `,`, `(`, `)` or a plain word after them. */
function suggestedCommands(text: string): string[][] {
	const out: string[][] = [];
	for (const m of text.matchAll(/ctpool((?: [^\s;,()]+)+)/g)) {
		const words: string[] = [];
		for (const w of m[1]!.trim().split(' ')) {
			if (['again', 'lists', 'or', 'then'].includes(w)) break;
			words.push(w);
		}
		out.push(words);
	}
	return out;
}

/** Runs a suggested command as printed: the shell's KUBECONFIG and CORRAL_NAMESPACE, nothing added. */
async function runAsPrinted(words: string[]) {
	const argv = words.map((w) =>
		w === '<image>'
			? 'ghcr.io/example/desktop:2'
			: w === '<cores>'
				? '1'
				: w === '<memory>'
					? '96Mi'
					: w,
	);
	const r = await ctpool(argv, {
		env: defaultEnv(),
		connection: { env: { ...process.env, KUBECONFIG: c.kubeconfigPath } },
	});
	expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
	return r;
}

async function specOf(ns: string, pool: string): Promise<PoolSpec> {
	const cm = await c.api.get('configmaps', `corral-vdi-ctpool-${pool}`, ns);
	return JSON.parse((cm!.data as { spec: string }).spec) as PoolSpec;
}

/** The console's store across namespaces (as ctpool -A), its hints computed from these objects. */
function consoleHints(): string[] {
	const pull = poolSpec({ size: 3 });
	const big = poolSpec({ size: 1, cpu: '2', memory: '4Gi' });
	const objects: KubeObject[] = [
		...[1, 2, 3].flatMap((i) => member('kiosk', i, pull, { state: 'Failed' })),
		...member('lab', 1, big, { state: 'Unschedulable' }),
	].map((o) => {
		const moved = { ...o, metadata: { ...o.metadata, namespace: OTHER } } as KubeObject & {
			status?: { containerStatuses?: Array<{ state?: { waiting?: { reason: string } } }> };
		};
		for (const cs of moved.status?.containerStatuses ?? [])
			if (cs.state?.waiting) cs.state.waiting.reason = 'ImagePullBackOff';
		return moved;
	});
	const configMaps = [
		['kiosk', pull],
		['lab', big],
	].map(([pool, s]) => ({
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: {
			name: `corral-vdi-ctpool-${pool}`,
			namespace: OTHER,
			labels: { 'corral.dev/vdi-ct-pool': pool as string },
		},
		data: { spec: JSON.stringify(s) },
	}));
	const store = createConsoleStore({
		session: {
			namespace: home,
			context: 'sim',
			allNamespaces: true,
			commandScope: { defaultNamespace: home },
		},
		now: NOW,
	});
	store.getState().applyBatch(upserts([...configMaps, ...objects]));
	const s = store.getState();
	const texts: string[] = [];
	const rooms = nodeRooms(
		[{ metadata: { name: 'node-a' }, status: { allocatable: { cpu: '8', memory: '32Gi' } } }],
		[],
	);
	for (const key of [`${OTHER}/kiosk`, `${OTHER}/lab`]) {
		const p = s.pools[key];
		expect(p, key).toBeDefined();
		const hp = sessionHintPool(s.session, key, p!);
		texts.push(poolHint(hp) ?? '');
		for (const row of p!.rows)
			for (const line of memberHint(row, null, hp, { rooms: { value: rooms } }, NOW))
				texts.push(line.text);
	}
	return texts;
}

beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [OTHER] });
	home = c.ns;
	// the same pool names in the default namespace and in the other one
	for (const ns of [home, OTHER])
		for (const [pool, size] of [
			['kiosk', '3'],
			['lab', '1'],
		] as const) {
			const r = await ctpool(['apply', pool, '--size', size, ...POOL_FLAGS, '-n', ns, ...c.kc]);
			expect(r.stderr).toBe('');
		}
}, 60_000);
afterAll(async () => {
	if (onRealCluster && c) await c.api.delete('namespaces', OTHER).catch(() => false);
	await c?.close();
});

describe('the commands the console suggests', () => {
	it('run as printed and act on the pool of the other namespace, not on its namesake', async () => {
		const commands = consoleHints().flatMap(suggestedCommands);
		// the pool image (pool and member hints) and the requests of the member that does not fit
		expect(commands.map((w) => w.join(' '))).toEqual(
			expect.arrayContaining([
				`apply kiosk --image <image> -n ${OTHER}`,
				`apply lab --cpu <cores> --mem <memory> -n ${OTHER}`,
			]),
		);
		for (const words of commands) expect(words).toEqual(expect.arrayContaining(['-n', OTHER]));
		for (const words of commands) await runAsPrinted(words);
		expect((await specOf(OTHER, 'kiosk')).image).toBe('ghcr.io/example/desktop:2');
		expect(await specOf(OTHER, 'lab')).toMatchObject({ cpu: '1', memory: '96Mi' });
		// the namesakes in the default namespace are as they were
		expect((await specOf(home, 'kiosk')).image).toBe('ghcr.io/example/desktop:1');
		expect((await specOf(home, 'lab')).memory).toBe('64Mi');
	});
});

describe('the commands ctpool delete names', () => {
	it('run as printed, one after another, and delete the pool of the other namespace only', async () => {
		const env = { env: defaultEnv() };
		await waitFor(
			async () =>
				JSON.parse((await ctpool(['status', 'kiosk', '-n', OTHER, '-o', 'json', ...c.kc])).stdout)
					.ready === 3,
			'kiosk ready',
		);
		const claimed = await ctpool(['claim', 'kiosk', 'wes@example.com', '-n', OTHER, ...c.kc], env);
		expect(claimed.code).toBe(0);
		const member = claimed.stdout.trim();
		const other = member === 'kiosk-2' ? 'kiosk-3' : 'kiosk-2';
		const on = await ctpool(
			['maintenance', 'kiosk', other, 'on', 'disk', '-n', OTHER, ...c.kc],
			env,
		);
		expect(on.code).toBe(0);
		const refused = await ctpool(['-n', OTHER, 'delete', 'kiosk', ...c.kc], env);
		expect(refused.code).toBe(1);
		const commands = suggestedCommands(refused.stderr);
		expect(commands.map((w) => w.join(' '))).toEqual([
			`release kiosk ${member} wes@example.com -n ${OTHER}`,
			`maintenance kiosk ${other} off -n ${OTHER}`,
			`delete kiosk -n ${OTHER}`,
		]);
		for (const words of commands) await runAsPrinted(words);
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-kiosk', OTHER)).toBeUndefined();
		expect(await c.api.get('configmaps', 'corral-vdi-ctpool-kiosk', home)).toBeDefined();
	});
});

describe('the fix a corrupt definition names', () => {
	it('carries the namespace of the pool', async () => {
		const made = await ctpool(['apply', 'rot', '--size', '1', ...POOL_FLAGS, '-n', OTHER, ...c.kc]);
		expect(made.code).toBe(0);
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-rot', OTHER))!;
		await c.api.update('configmaps', { ...cm, data: { spec: '{"image": ' } });
		for (const argv of [
			['status', 'rot'],
			['reconcile', 'rot'],
		]) {
			const r = await ctpool([...argv, '-n', OTHER, ...c.kc]);
			expect(r.code).toBe(1);
			expect(r.stderr).toContain(`fix it with ctpool apply rot --image IMAGE --size N -n ${OTHER}`);
		}
	});
});
