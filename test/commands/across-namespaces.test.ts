/**
 * Across pools and namespaces: `status` without a pool and with -A, `find` (table and the
 * documented -o json), and an identity that may not list across namespaces told how to fix
 * it, then allowed by the ClusterRole `ctpool rbac -A` prints.
 */

import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { ctpool } from './capture.js';

let sim: TestSim;
const kc = () => ['--kubeconfig', sim.kubeconfigPath];

async function ok(argv: string[]): Promise<string> {
	const r = await ctpool([...argv, ...kc()]);
	expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
	return r.stdout;
}

beforeAll(async () => {
	sim = await startTestSim({ namespaces: ['team-a', 'team-b'] });
	// three pools in two namespaces; desk exists in both
	for (const [ns, pool, size] of [
		['team-a', 'desk', '2'],
		['team-a', 'lab', '1'],
		['team-b', 'desk', '1'],
	] as const) {
		await ok(['apply', pool, '--size', size, ...POOL_FLAGS, '-n', ns]);
		await ok(['reconcile', pool, '-n', ns]);
	}
	await ok(['claim', 'desk', 'bob@example.com', '-n', 'team-a']);
	await ok(['claim', 'desk', 'alice@example.com', '-n', 'team-b']);
}, 60_000);
afterAll(() => sim?.cleanup());

describe('status across pools', () => {
	it('-A lists every pool of every namespace with a NAMESPACE column', async () => {
		const out = await ok(['status', '-A']);
		const lines = out.trim().split('\n');
		expect(lines[0]).toMatch(/^NAMESPACE\s+POOL\s+SIZE\/OBS\s+READY\s+CLAIMED\s+FREE/);
		expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
			['team-a', 'desk'],
			['team-a', 'lab'],
			['team-b', 'desk'],
		]);
	});

	it('without a pool and without -A lists the pools of the namespace only', async () => {
		const out = await ok(['status', '-n', 'team-b']);
		expect(out).toMatch(/^POOL\s+SIZE\/OBS/);
		expect(out).not.toContain('lab');
		expect(out.trim().split('\n')).toHaveLength(2);
	});

	it('-A -o json gives items with namespace, pool and the status object', async () => {
		const items = JSON.parse(await ok(['status', '-A', '-o', 'json'])).items as Array<{
			namespace: string;
			pool: string;
			status: { desired: number; claimed: number; members: Array<{ holder: string }> };
			error: string | null;
		}>;
		expect(items.map((i) => `${i.namespace}/${i.pool}`)).toEqual([
			'team-a/desk',
			'team-a/lab',
			'team-b/desk',
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
		expect(lines).toHaveLength(2);
		expect(lines[1]).toMatch(/^team-a\s+desk\s+desk-\d\s+\S+\s+bob@example\.com\s+\d+s$/);
	});

	it('-o json has the documented shape', async () => {
		const doc = JSON.parse(await ok(['find', 'BOB@example', '-A', '-o', 'json']));
		expect(Object.keys(doc)).toEqual(['query', 'items']);
		expect(doc.query).toBe('BOB@example');
		expect(doc.items).toHaveLength(1);
		const hit = doc.items[0];
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
			namespace: 'team-a',
			pool: 'desk',
			holder: 'bob@example.com',
			matched: ['holder'],
		});
		expect(hit.claimedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
	});

	it('a pool name gives all its members, in both namespaces', async () => {
		const doc = JSON.parse(await ok(['find', 'desk', '-A', '-o', 'json']));
		const where = doc.items.map(
			(h: { namespace: string; member: string }) => `${h.namespace}/${h.member}`,
		);
		expect(where).toEqual(['team-a/desk-1', 'team-a/desk-2', 'team-b/desk-1']);
		expect(doc.items[0].matched).toEqual(['pool', 'member']);
	});

	it('without -A searches the namespace only; nothing found exits 1 and says so', async () => {
		const r = await ctpool(['find', 'bob', '-n', 'team-b', ...kc()]);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe('');
		expect(r.stderr).toContain('no pool, member or holder matches "bob" in namespace team-b');
		expect(r.stderr).toContain('-A searches every namespace');
		const json = await ctpool(['find', 'nobody', '-A', '-o', 'json', ...kc()]);
		expect(json.code).toBe(1);
		expect(JSON.parse(json.stdout)).toEqual({ query: 'nobody', items: [] });
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
		const who = { who: 'test-admin' };
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
		sim.cluster.store.create(
			'roles',
			{
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'Role',
				metadata: { name, namespace: 'team-a' },
				rules,
			},
			who,
		);
		sim.cluster.store.create(
			'rolebindings',
			{
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'RoleBinding',
				metadata: { name, namespace: 'team-a' },
				roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
				subjects: [{ kind: 'ServiceAccount', name, namespace: 'team-a' }],
			},
			who,
		);
		const narrow = ['--kubeconfig', await sim.cluster.serviceAccountKubeconfig('team-a', name)];
		// its own namespace is fine
		expect((await ctpool(['find', 'bob', '-n', 'team-a', ...narrow])).code).toBe(0);
		for (const argv of [
			['status', '-A'],
			['find', 'bob', '-A'],
		]) {
			const r = await ctpool([...argv, ...narrow]);
			expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
			expect(r.stderr).toContain('cannot list configmaps in all namespaces: use -n NAMESPACE');
			expect(r.stderr).toContain('ctpool rbac --all-namespaces');
		}

		const yaml = await ok(['rbac', '-A', '--read-only', '--service-account', name, '-n', 'team-a']);
		const docs = loadAllYaml(yaml) as Array<{
			kind: string;
			metadata: { name: string; namespace?: string };
		}>;
		expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
		expect(docs.every((d) => d.metadata.namespace === undefined)).toBe(true);
		for (const doc of docs)
			sim.cluster.store.create(
				doc.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings',
				JSON.parse(JSON.stringify(doc)),
				who,
			);
		const r = await ctpool(['find', 'alice', '-A', ...narrow]);
		expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
		expect(r.stdout).toContain('team-b');
	});
});
