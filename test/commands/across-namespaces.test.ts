/**
 * Across pools and namespaces: `status` without a pool and with -A, `find` (table and the
 * documented -o json), and an identity that may not list across namespaces told how to fix
 * it, then allowed by the ClusterRole `ctpool rbac -A` prints.
 */

import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { testNamespace } from '../support/real-cluster.js';
import { waitFor } from '../support/wait.js';
import { ctpool } from './capture.js';

/**
 * The two namespaces of the pools. The real control plane is shared by every test file, so
 * there they are this file's own (removed after), and what -A shows is narrowed to them.
 */
const BASE = onRealCluster ? `${testNamespace()}-` : '';
const TEAM_A = `${BASE}team-a`;
const TEAM_B = `${BASE}team-b`;
const OURS = new Set([TEAM_A, TEAM_B]);

let c: TestCluster;
const kc = () => c.kc;
/** Cluster-scoped objects this file made on the real control plane, removed after. */
const made: Array<[string, string]> = [];

/** The rows of a table whose first column is one of this file's namespaces. */
function ourRows(lines: string[]): string[] {
	return lines.filter((l) => OURS.has(l.split(/\s+/)[0]!));
}

/** The items of this file's namespaces. */
function ourItems<T extends { namespace: string }>(items: T[]): T[] {
	return items.filter((i) => OURS.has(i.namespace));
}

/**
 * stderr without the lines about other namespaces: on the shared real control plane -A also
 * sees other test files' pools, some of them broken on purpose (and those make the exit 1).
 */
function ourStderr(stderr: string): string {
	if (!onRealCluster) return stderr;
	return stderr
		.split('\n')
		.filter((l) => {
			const ns = /^ctpool: ([a-z0-9-]+)\//.exec(l)?.[1];
			return ns === undefined || OURS.has(ns);
		})
		.join('\n');
}

async function ok(argv: string[]): Promise<string> {
	const r = await ctpool([...argv, ...kc()]);
	const stderr = ourStderr(r.stderr);
	const code = onRealCluster && stderr === '' ? 0 : r.code;
	expect({ argv, code, stderr }).toEqual({ argv, code: 0, stderr: '' });
	return r.stdout;
}

beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [TEAM_A, TEAM_B] });
	// three pools in two namespaces; desk exists in both
	for (const [ns, pool, size] of [
		[TEAM_A, 'desk', '2'],
		[TEAM_A, 'lab', '1'],
		[TEAM_B, 'desk', '1'],
	] as const) {
		await ok(['apply', pool, '--size', size, ...POOL_FLAGS, '-n', ns]);
		await ok(['reconcile', pool, '-n', ns]);
		// claimable once Ready (on the real control plane a new pod waits a moment for its PVC)
		await waitFor(
			async () =>
				JSON.parse(await ok(['status', pool, '-n', ns, '-o', 'json'])).ready === Number(size),
			`pool ${ns}/${pool} ready`,
		);
	}
	await ok(['claim', 'desk', 'bob@example.com', '-n', TEAM_A]);
	await ok(['claim', 'desk', 'alice@example.com', '-n', TEAM_B]);
}, 60_000);
afterAll(async () => {
	if (onRealCluster && c) {
		for (const [resource, name] of made) await c.api.delete(resource, name).catch(() => false);
		for (const ns of OURS) await c.api.delete('namespaces', ns).catch(() => false);
	}
	await c?.close();
});

describe('status across pools', () => {
	it('-A lists every pool of every namespace with a NAMESPACE column', async () => {
		const out = await ok(['status', '-A']);
		const lines = out.trim().split('\n');
		expect(lines[0]).toMatch(/^NAMESPACE\s+POOL\s+SIZE\/OBS\s+READY\s+CLAIMED\s+FREE/);
		expect(ourRows(lines.slice(1)).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
			[TEAM_A, 'desk'],
			[TEAM_A, 'lab'],
			[TEAM_B, 'desk'],
		]);
	});

	it('without a pool and without -A lists the pools of the namespace only', async () => {
		const out = await ok(['status', '-n', TEAM_B]);
		expect(out).toMatch(/^POOL\s+SIZE\/OBS/);
		expect(out).not.toContain('lab');
		expect(out.trim().split('\n')).toHaveLength(2);
	});

	it('-A -o json gives items with namespace, pool and the status object', async () => {
		const items = ourItems(
			JSON.parse(await ok(['status', '-A', '-o', 'json'])).items as Array<{
				namespace: string;
				pool: string;
				status: { desired: number; claimed: number; members: Array<{ holder: string }> };
				error: string | null;
			}>,
		);
		expect(items.map((i) => `${i.namespace}/${i.pool}`)).toEqual([
			`${TEAM_A}/desk`,
			`${TEAM_A}/lab`,
			`${TEAM_B}/desk`,
		]);
		expect(items[0]?.status.claimed).toBe(1);
		expect(items[0]?.status.members.some((m) => m.holder === 'bob@example.com')).toBe(true);
		expect(items.every((i) => i.error === null)).toBe(true);
	});

	it('a pool by name across namespaces is a usage error, as in kubectl', async () => {
		const r = await ctpool(['status', 'desk', '-A', ...kc()]);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('cannot be shown by name across all namespaces');
	});
});

describe('find', () => {
	it('finds a holder across namespaces (table)', async () => {
		const out = await ok(['find', 'bob', '-A']);
		const lines = out.trim().split('\n');
		expect(lines[0]).toMatch(/^NAMESPACE\s+POOL\s+MEMBER\s+STATE\s+HOLDER\s+CLAIMED$/);
		const ours = ourRows(lines.slice(1));
		expect(ours).toHaveLength(1);
		expect(ours[0]).toMatch(
			new RegExp(`^${TEAM_A}\\s+desk\\s+desk-\\d\\s+\\S+\\s+bob@example\\.com\\s+\\d+s$`),
		);
	});

	it('-o json has the documented shape', async () => {
		const doc = JSON.parse(await ok(['find', 'BOB@example', '-A', '-o', 'json']));
		expect(Object.keys(doc)).toEqual(['query', 'items']);
		expect(doc.query).toBe('BOB@example');
		const items = ourItems(doc.items as Array<{ namespace: string }>);
		expect(items).toHaveLength(1);
		const hit = items[0]!;
		expect(Object.keys(hit)).toEqual([
			'namespace',
			'pool',
			'member',
			'state',
			'holder',
			'claimedAt',
			'matched',
		]);
		expect(hit).toMatchObject({
			namespace: TEAM_A,
			pool: 'desk',
			holder: 'bob@example.com',
			matched: ['holder'],
		});
		expect((hit as { claimedAt?: string }).claimedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
	});

	it('a pool name gives all its members, in both namespaces', async () => {
		const doc = JSON.parse(await ok(['find', 'desk', '-A', '-o', 'json']));
		const items = ourItems(
			doc.items as Array<{ namespace: string; member: string; matched: string[] }>,
		);
		const where = items.map((h) => `${h.namespace}/${h.member}`);
		expect(where).toEqual([`${TEAM_A}/desk-1`, `${TEAM_A}/desk-2`, `${TEAM_B}/desk-1`]);
		expect(items[0]!.matched).toEqual(['pool', 'member']);
	});

	it('without -A searches the namespace only; nothing found exits 1 and says so', async () => {
		const r = await ctpool(['find', 'bob', '-n', TEAM_B, ...kc()]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe('');
		expect(r.stderr).toContain(`no pool, member or holder matches "bob" in namespace ${TEAM_B}`);
		expect(r.stderr).toContain('-A searches every namespace');
		// (a text no pool, member or holder of any test on a shared cluster has)
		const json = await ctpool(['find', 'nobody-q7z', '-A', '-o', 'json', ...kc()]);
		expect(json.code).toBe(1);
		expect(JSON.parse(json.stdout)).toEqual({ query: 'nobody-q7z', items: [] });
	});

	it('refuses a missing or empty text and an unknown format', async () => {
		expect((await ctpool(['find', ...kc()])).stderr).toContain('missing <identity-or-member>');
		expect((await ctpool(['find', ' ', ...kc()])).stderr).toContain('the text to find is empty');
		const yaml = await ctpool(['find', 'bob', '-o', 'yaml', ...kc()]);
		expect(yaml.code).toBe(2);
		expect(yaml.stderr).toContain('use table or json');
	});
});

describe('an identity that may not list across namespaces', () => {
	it('is told the fix, and the ClusterRole of ctpool rbac -A lets it', async () => {
		const name = 'narrow';
		const rules = [
			{
				apiGroups: [''],
				resources: ['configmaps', 'pods', 'persistentvolumeclaims'],
				verbs: ['get', 'list', 'watch'],
			},
			{
				apiGroups: ['coordination.k8s.io'],
				resources: ['leases'],
				verbs: ['get', 'list', 'watch'],
			},
		];
		const narrow = ['--kubeconfig', await c.grant(name, rules, TEAM_A)];
		// its own namespace is fine (once the authorizer has seen the new binding)
		await waitFor(
			async () => (await ctpool(['find', 'bob', '-n', TEAM_A, ...narrow])).code === 0,
			'the narrow identity finds bob in its own namespace',
		);
		for (const argv of [
			['status', '-A'],
			['find', 'bob', '-A'],
		]) {
			const r = await ctpool([...argv, ...narrow]);
			expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
			expect(r.stderr).toContain('cannot list configmaps in all namespaces: use -n NAMESPACE');
			expect(r.stderr).toContain('ctpool rbac --all-namespaces');
		}

		const yaml = await ok(['rbac', '-A', '--read-only', '--service-account', name, '-n', TEAM_A]);
		const docs = loadAllYaml(yaml) as KubeObject[];
		expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
		expect(docs.every((d) => d.metadata.namespace === undefined)).toBe(true);
		for (const doc of docs) {
			const resource = doc.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
			// The ClusterRole's name is the same for every namespace: on the shared real control
			// plane another run may have made it already (and it is left for them).
			await c.api.put(resource, JSON.parse(JSON.stringify(doc)));
			if (resource === 'clusterrolebindings') made.push([resource, doc.metadata.name]);
		}
		// the authorizer sees the new binding within moments on the real control plane
		const r = await waitFor(async () => {
			const got = await ctpool(['find', 'alice', '-A', ...narrow]);
			return got.code === 0 ? got : undefined;
		}, 'find -A allowed by the ClusterRole');
		expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
		expect(r.stdout).toContain(TEAM_B);
	});
});
