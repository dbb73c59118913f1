/**
 * `ctpool release --expired [pool] [-A] [--dry-run]` (issue 24, finding 7) and a release of a
 * member the pool does not have (issue 24, finding 8): every expired claim of a pool, a
 * namespace or every namespace is listed with its holder and freed; --dry-run changes nothing;
 * a claim renewed since it was listed is left alone; live claims are never touched.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	claim,
	deriveContext,
	findExpiredClaims,
	releaseExpired,
} from '../../source/engine/index.js';
import { onRealCluster, startTestCluster, type TestCluster } from '../support/cluster.js';
import { POOL_FLAGS } from '../support/pool-spec.js';
import { testNamespace } from '../support/real-cluster.js';
import { ctpool } from './capture.js';

const BASE = onRealCluster ? `${testNamespace()}-` : '';
const TEAM_A = `${BASE}xa`;
const TEAM_B = `${BASE}xb`;
const OURS = new Set([TEAM_A, TEAM_B]);
const HOUR = 3_600_000;

let c: TestCluster;

async function ok(argv: string[]): Promise<string> {
	const r = await ctpool([...argv, ...c.kc]);
	expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
	return r.stdout;
}

/** A user's claim Lease on a member, written as another client would, acquired `ago` ms back. */
async function claimLease(ns: string, pool: string, member: string, holder: string, ago: number) {
	const t = new Date(Date.now() - ago).toISOString().replace('Z', '000Z');
	await c.api.put('leases', {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: {
			name: `corral-vdi-ct-${member}`,
			namespace: ns,
			labels: { 'corral.dev/vdi-ct-pool': pool, 'corral.dev/vdi-ct-member': member },
		},
		spec: { holderIdentity: holder, acquireTime: t, renewTime: t, leaseDurationSeconds: 3600 },
	});
}

async function holderOf(ns: string, member: string): Promise<string | undefined> {
	const lease = await c.api.get('leases', `corral-vdi-ct-${member}`, ns);
	return (lease as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity;
}

/** The table rows of this file's namespaces: [namespace, pool, member, holder]. */
function rows(out: string): string[][] {
	return out
		.split('\n')
		.map((l) => l.split(/\s+/))
		.filter((cells) => OURS.has(cells[0]!))
		.map((cells) => cells.slice(0, 4));
}

beforeAll(async () => {
	c = await startTestCluster({}, { namespaces: [TEAM_A, TEAM_B] });
	for (const [ns, pool, size] of [
		[TEAM_A, 'desk', '3'],
		[TEAM_A, 'lab', '1'],
		[TEAM_B, 'desk', '2'],
	] as const)
		await ok(['apply', pool, '--size', size, ...POOL_FLAGS, '-n', ns]);
	await claimLease(TEAM_A, 'desk', 'desk-1', 'bob@example.com', 2 * HOUR);
	await claimLease(TEAM_A, 'desk', 'desk-2', 'erin@example.com', 0);
	await claimLease(TEAM_A, 'lab', 'lab-1', 'carol@example.com', 3 * HOUR);
	await claimLease(TEAM_B, 'desk', 'desk-2', 'dave@example.com', 2 * HOUR);
}, 60_000);
afterAll(async () => {
	if (onRealCluster && c)
		for (const ns of OURS) await c.api.delete('namespaces', ns).catch(() => false);
	await c?.close();
});

describe('release --expired', () => {
	it('--dry-run -A lists every expired claim of every namespace with its holder and changes nothing', async () => {
		const mark = c.mark();
		const out = await ok(['release', '--expired', '-A', '--dry-run']);
		expect(out).toMatch(/^NAMESPACE\s+POOL\s+MEMBER\s+HOLDER\s+EXPIRED/);
		expect(rows(out)).toEqual([
			[TEAM_A, 'desk', 'desk-1', 'bob@example.com'],
			[TEAM_A, 'lab', 'lab-1', 'carol@example.com'],
			[TEAM_B, 'desk', 'desk-2', 'dave@example.com'],
		]);
		expect(out).toContain('leave out --dry-run');
		expect(await c.ctpoolMutations(mark)).toEqual([]);
		// it changes nothing, so --read-only lets it list; without --dry-run it is refused
		expect(rows(await ok(['release', '--expired', '-A', '--dry-run', '--read-only']))).toEqual(
			rows(out),
		);
		const refused = await ctpool(['release', '--expired', '-A', '--read-only', ...c.kc]);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain('--read-only refuses ctpool release');
	});

	it('with a pool frees only that pool’s expired claims; a live claim is never touched', async () => {
		const out = await ok(['release', '--expired', 'desk', '-n', TEAM_A]);
		expect(rows(out)).toEqual([[TEAM_A, 'desk', 'desk-1', 'bob@example.com']]);
		expect(out).toContain(`${TEAM_A}/desk: released desk-1 (claimed by bob@example.com)`);
		expect(out).toContain(`released 1 of 1 expired claim in pool desk (namespace ${TEAM_A})`);
		expect(await holderOf(TEAM_A, 'desk-1')).toBeUndefined();
		expect(await holderOf(TEAM_A, 'desk-2')).toBe('erin@example.com');
		expect(await holderOf(TEAM_A, 'lab-1')).toBe('carol@example.com');
		expect(await holderOf(TEAM_B, 'desk-2')).toBe('dave@example.com');
	});

	it('without a pool frees the namespace’s, with -A every namespace’s', async () => {
		const out = await ok(['release', '--expired', '-n', TEAM_A]);
		expect(rows(out)).toEqual([[TEAM_A, 'lab', 'lab-1', 'carol@example.com']]);
		expect(await holderOf(TEAM_A, 'lab-1')).toBeUndefined();
		expect(await holderOf(TEAM_B, 'desk-2')).toBe('dave@example.com');
		// every namespace on the simulated cluster; on the shared real control plane only this
		// file's other namespace, so that no other test file's expired claim is freed under it
		const all = await ok(['release', '--expired', ...(onRealCluster ? ['-n', TEAM_B] : ['-A'])]);
		expect(rows(all)).toEqual([[TEAM_B, 'desk', 'desk-2', 'dave@example.com']]);
		expect(await holderOf(TEAM_B, 'desk-2')).toBeUndefined();
		expect(await holderOf(TEAM_A, 'desk-2')).toBe('erin@example.com');
		const none = await ok(['release', '--expired', '-n', TEAM_B]);
		expect(none).toBe(`no expired claims in namespace ${TEAM_B}\n`);
	});

	it('a claim renewed after it was listed is left alone', async () => {
		await claimLease(TEAM_B, 'desk', 'desk-1', 'fay@example.com', 2 * HOUR);
		const ctx = deriveContext(c.context(), { namespace: TEAM_B });
		const listed = await findExpiredClaims(ctx, { pool: 'desk' });
		expect(listed.map((l) => `${l.member} ${l.holder}`)).toEqual(['desk-1 fay@example.com']);
		const renewed = await claim(ctx, 'desk', 'fay@example.com');
		expect(renewed).toMatchObject({ member: 'desk-1', renewed: true });
		const [outcome] = await releaseExpired(ctx, listed);
		expect(outcome).toMatchObject({ ok: false, member: 'desk-1' });
		expect(outcome?.message).toContain('renewed the claim since it was listed; left alone');
		expect(await holderOf(TEAM_B, 'desk-1')).toBe('fay@example.com');
	});

	it('bad combinations are usage errors before any cluster call', async () => {
		for (const [argv, text] of [
			[['release', '--expired', 'desk', '-A'], 'name its namespace with -n instead'],
			[
				['release', 'desk', 'desk-1', 'bob@example.com', '--dry-run'],
				'--dry-run goes with --expired',
			],
			[['release', '--expired', 'desk', 'more'], 'unexpected argument "more"'],
		] as const) {
			const mark = c.mark();
			const r = await ctpool([...argv, ...c.kc]);
			expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
			expect(r.stderr).toContain(text);
			expect(await c.ctpoolRequests(mark)).toBe(0);
		}
	});
});

describe('release of a member the pool does not have (issue 24, finding 8)', () => {
	it('is an error naming the pool’s members, exit 1, nothing changed', async () => {
		const mark = c.mark();
		const r = await ctpool(['release', 'desk', 'desk-9', 'bob@example.com', '-n', TEAM_A, ...c.kc]);
		expect(r.code).toBe(1);
		// the command it suggests runs as printed: the pool is not in the default namespace
		expect(r.stderr).toBe(
			`ctpool: pool desk has no member desk-9: its members are desk-1 to desk-3; ctpool status desk -n ${TEAM_A} lists them\n`,
		);
		expect(await c.ctpoolMutations(mark)).toEqual([]);
	});

	it('with --context, the suggested command carries it too', async () => {
		const context = c.kube.contextName;
		const r = await ctpool([
			'release',
			'desk',
			'desk-9',
			'bob@example.com',
			'-n',
			TEAM_A,
			'--context',
			context,
			...c.kc,
		]);
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(`ctpool status desk -n ${TEAM_A} --context ${context} lists them`);
	});

	it('a member within the size without a claim is still "nothing to do"', async () => {
		const out = await ok(['release', 'desk', 'desk-3', 'bob@example.com', '-n', TEAM_A]);
		expect(out).toBe('desk-3 has no claim; nothing to do\n');
	});
});
