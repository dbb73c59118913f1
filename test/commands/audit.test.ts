/**
 * `ctpool audit` reads back what the CLI and other clients did, from the cluster's Events;
 * the CLI and the console default to the same acting identity.
 */
import { hostname, userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { testNamespace } from '../support/real-cluster.js';
import { ctpool } from './capture.js';

/**
 * A second namespace: on the real control plane, where every test file shares the cluster,
 * one of its own (removed after), so -A finds this file's pools there and no one else's.
 */
const OTHER = onRealCluster ? `${testNamespace()}-other` : 'other';

let c: TestCluster;
let kc: string[];
let ENV: Record<string, string>;
beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [OTHER] });
	kc = c.kc;
	ENV = { NO_COLOR: '1', CORRAL_NAMESPACE: c.ns };
});
afterAll(async () => {
	if (onRealCluster) await c?.api.delete('namespaces', OTHER).catch(() => false);
	await c?.close();
});

/** The items of this file's two namespaces (-A on the real cluster shows every test's too). */
function ours(items: Item[]): Item[] {
	return items.filter((i) => i.namespace === c.ns || i.namespace === OTHER);
}

interface Item {
	time: string;
	user: string;
	pass: string;
	namespace: string;
	pool: string;
	member: string;
	action: string;
	holder: string;
	identity: string;
	actor: string;
	force: boolean;
	count: number;
	message: string;
}

async function auditJson(
	args: string[],
): Promise<{ apiVersion: string; kind: string; items: Item[] }> {
	const r = await ctpool(['audit', ...args, '-o', 'json', ...kc], { env: ENV });
	expect(r.stderr).toBe('');
	expect(r.code).toBe(0);
	return JSON.parse(r.stdout);
}

describe('ctpool audit', () => {
	it('shows a forced release with its acting identity, newest first, filterable, in a stable JSON list', async () => {
		expect(
			(await ctpool(['apply', 'aud', ...POOL_FLAGS, '--size', '2', ...kc], { env: ENV })).code,
		).toBe(0);
		const claimed = await ctpool(['claim', 'aud', 'alice@example.com', ...kc], {
			env: { ...ENV, CTPOOL_IDENTITY: 'broker@example.com' },
		});
		expect(claimed.code).toBe(0);
		const member = claimed.stdout.trim();
		const forced = await ctpool(
			[
				'release',
				'aud',
				member,
				'nightshift@example.com',
				'--force',
				'--identity',
				'root@admin',
				...kc,
			],
			{ env: ENV },
		);
		expect(forced.code).toBe(0);

		const list = await auditJson(['aud']);
		expect(list.apiVersion).toBe('ctpool/v1');
		expect(list.kind).toBe('AuditList');
		const times = list.items.map((i) => Date.parse(i.time));
		expect([...times].sort((a, b) => b - a)).toEqual(times);
		const release = list.items.find((i) => i.action === 'release')!;
		expect(release).toMatchObject({
			namespace: c.ns,
			pool: 'aud',
			member,
			holder: 'alice@example.com',
			identity: 'nightshift@example.com',
			actor: 'root@admin',
			force: true,
			count: 1,
			message: `released ${member} from alice@example.com by root@admin (--force, as nightshift@example.com${release.user ? `, user ${release.user}` : ''})`,
			timeClamped: false,
		});
		const claim = list.items.find((i) => i.action === 'claim')!;
		expect(claim).toMatchObject({ holder: 'alice@example.com', actor: 'broker@example.com' });

		// the default acting identity: user@host, the console's too
		const mine = `${userInfo().username}@${hostname()}`.replace(/[^A-Za-z0-9._@-]/g, '');
		const apply = list.items.find((i) => i.action === 'create' && i.member === '')!;
		expect(apply.actor).toBe(mine);
		// the acts of a reconcile pass name it (apply's reconcile made the members); a release is no pass
		const passes = list.items.filter((i) => i.action === 'create' && i.pass !== '');
		expect(passes.length).toBeGreaterThan(0);
		for (const i of passes) expect(i.pass).toMatch(/^[0-9a-f]{16}$/);
		expect(release.pass).toBe('');

		expect((await auditJson(['--by', 'root@admin'])).items.map((i) => i.action)).toEqual([
			'create',
			'release',
		]);
		// the filter's old spelling shared its name with the global --identity (who acts): refused,
		// in front of the command as after it, with the way to the filter (issue 24, finding 8)
		for (const argv of [
			['audit', '--identity', 'root@admin'],
			['--identity', 'root@admin', 'audit'],
		]) {
			const old = await ctpool([...argv, ...kc], { env: ENV });
			expect(old.code).toBe(2);
			expect(old.stderr).toContain('audit filters by identity with --by ID');
		}
		expect((await auditJson(['--action', 'force-release'])).items).toHaveLength(1);
		expect((await auditJson(['--action', 'claim', '--since', '1h'])).items).toHaveLength(1);

		const table = await ctpool(['audit', 'aud', ...kc], { env: ENV });
		expect(table.code).toBe(0);
		const lines = table.stdout.trim().split('\n');
		expect(lines[0]).toMatch(/^AGE +POOL +ACTION +MEMBER +HOLDER +BY +DETAIL$/);
		expect(lines.find((l) => l.includes('release --force'))).toMatch(
			/alice@example\.com +root@admin \(as nightshift@example\.com(, user [^)]+)?\)/,
		);
	});

	it('shows a refused claim with the identity refused, and lists every namespace with -A', async () => {
		expect(
			(
				await ctpool(['apply', 'full', ...POOL_FLAGS, '--size', '1', '-n', OTHER, ...kc], {
					env: ENV,
				})
			).code,
		).toBe(0);
		expect(
			(await ctpool(['claim', 'full', 'gil@example.com', '-n', OTHER, ...kc], { env: ENV })).code,
		).toBe(0);
		const refused = await ctpool(['claim', 'full', 'hal@example.com', '-n', OTHER, ...kc], {
			env: ENV,
		});
		expect(refused.code).not.toBe(0);
		expect(refused.stderr).toContain(
			'pool has no free members (desired 1, claimed 1, unschedulable 0)',
		);
		expect((await auditJson(['--action', 'claim-refused'])).items).toEqual([]);
		const all = ours((await auditJson(['-A', '--action', 'claim-refused'])).items);
		expect(all).toHaveLength(1);
		expect(all[0]).toMatchObject({
			namespace: OTHER,
			pool: 'full',
			holder: 'hal@example.com',
		});
		const table = await ctpool(['audit', '-A', '--action', 'claim-refused', ...kc], { env: ENV });
		expect(table.stdout.split('\n')[0]).toMatch(/^AGE +NAMESPACE +POOL/);
		expect(table.stdout).toMatch(new RegExp(`${OTHER} +full +claim-refused +- +hal@example\\.com`));
	});

	it('refuses bad flags with the fix, and says when there is nothing to show', async () => {
		const bad = await ctpool(['audit', '--action', 'nuke', ...kc], { env: ENV });
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain('unknown action "nuke"; use one of claim, renew, release');
		const since = await ctpool(['audit', '--since', 'yesterday', ...kc], { env: ENV });
		expect(since.code).toBe(2);
		expect(since.stderr).toContain('is not a duration');
		const none = await ctpool(['audit', 'nopool', ...kc], { env: ENV });
		expect(none.code).toBe(0);
		expect(none.stdout).toBe('');
		expect(none.stderr).toContain(`No audit lines found in namespace ${c.ns}`);
		expect(none.stderr).toContain('the cluster keeps Events ~1h');
	});
});
