/**
 * Every path that writes a Kubernetes Event writes the one format: the note is the audit
 * record in its fixed shape, and reason, action, the regarding object, the related Lease,
 * the pool label and the audit annotation say the same for programs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	apply,
	claim,
	readAudit,
	reconcile,
	release,
	setMaintenance,
	writeDefinition,
} from '../../source/engine/index.js';
import { authenticatedUser } from '../../source/kube/whoami.js';
import {
	AUDIT_ANNOTATION,
	AUDIT_POOL_LABEL,
	AUDIT_REASON,
	type AuditEntry,
	type AuditRecord,
	auditNote,
} from '../../source/pool/audit.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { poolError, putLease, waitReady } from './fixtures.js';

let c: TestCluster;
/** The user the cluster authenticates the tests' connection as (every record names it). */
let user: string | null = null;
beforeAll(async () => {
	c = await startTestCluster();
	user = await authenticatedUser(c.kube);
});
afterAll(() => c?.close());

type RawEvent = KubeObject & {
	reason: string;
	action?: string;
	type: string;
	message: string;
	count?: number;
	involvedObject: { kind: string; name: string; namespace: string };
	related?: { kind: string; name: string };
	reportingComponent?: string;
	reportingInstance?: string;
};

/** ctpool's Events of a pool, oldest first. */
async function eventsOf(pool: string): Promise<RawEvent[]> {
	return (
		await c.api.list<RawEvent>('events', { labelSelector: `${AUDIT_POOL_LABEL}=${pool}` })
	).sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
}

/** Checks that an Event says the same thing in every field, and returns its record. */
function checkOneFormat(e: RawEvent): AuditRecord & { v: number } {
	const record = JSON.parse(e.metadata.annotations?.[AUDIT_ANNOTATION] ?? 'null');
	expect(record.v).toBe(1);
	expect(e.message).toBe(auditNote(record));
	expect(e.reason).toBe(AUDIT_REASON[record.action as keyof typeof AUDIT_REASON]);
	expect(e.action).toBe(record.action);
	expect(e.reportingComponent).toBe('ctpool');
	expect(e.reportingInstance).toBeTruthy();
	expect(e.type).toBe(
		['claim-refused', 'release-failed', 'reconcile-failed'].includes(record.action)
			? 'Warning'
			: 'Normal',
	);
	if (record.member) {
		expect(e.involvedObject).toMatchObject({
			kind: 'PersistentVolumeClaim',
			name: `${record.member}-data`,
		});
		if (['claim', 'renew', 'release', 'release-failed'].includes(record.action))
			expect(e.related).toMatchObject({ kind: 'Lease', name: `corral-vdi-ct-${record.member}` });
	} else
		expect(e.involvedObject).toMatchObject({
			kind: 'ConfigMap',
			name: `corral-vdi-ctpool-${record.pool}`,
		});
	return record;
}

/** Runs an act and returns the records of the Events it wrote. */
async function recordsOf(pool: string, act: () => Promise<unknown>): Promise<AuditRecord[]> {
	const before = new Set((await eventsOf(pool)).map((e) => e.metadata.name));
	await act();
	return (await eventsOf(pool))
		.filter((e) => !before.has(e.metadata.name))
		.map((e) => {
			const { v: _v, user: recorded, pass, ...r } = checkOneFormat(e);
			// every record names the authenticated user (checked here, left out below)
			expect(recorded).toBe(user ?? undefined);
			// a reconcile pass's acts name the pass (see test/engine/audit-passes.test.ts)
			if (pass !== undefined) expect(pass).toMatch(/^[0-9a-f]{16}$/);
			return r;
		});
}

describe('one Event format', () => {
	it('is written the same by every path: claim, renew, release (own, forced, named), maintenance, refusal, reconcile steps and failures', async () => {
		const pool = 'aud';
		const ops = c.context({ actor: 'ops@example.com' });
		const made = await recordsOf(pool, () => apply(ops, pool, poolSpec({ size: 2 })));
		expect(made).toEqual([
			{
				action: 'create',
				pool,
				target: 'aud-1, aud-2 (2 members)',
				actor: 'ops@example.com',
				detail: 'from ghcr.io/example/desktop:1',
			},
		]);
		await waitReady(ops, pool, 2);

		// a claim made by a broker acting for the user
		// a fresh engine per act, as separate processes would be (no cached read of the pool)
		const brokerCtx = () => c.context({ actor: 'broker@example.com' });
		const broker = brokerCtx();
		let member = '';
		expect(
			await recordsOf(pool, async () => {
				member = (await claim(broker, pool, 'alice@example.com')).member;
			}),
		).toEqual([
			{
				action: 'claim',
				pool,
				member: 'aud-1',
				holder: 'alice@example.com',
				actor: 'broker@example.com',
			},
		]);
		expect(
			auditNote({
				action: 'claim',
				pool,
				member,
				holder: 'alice@example.com',
				actor: 'broker@example.com',
			}),
		).toBe('claimed aud-1 for alice@example.com by broker@example.com');

		// the same claim again, expired: renewed
		await c.api.delete('leases', 'corral-vdi-ct-aud-1');
		await putLease(c, pool, 'aud-1', 'alice@example.com', Date.now() - 7_200_000, 3600);
		expect(await recordsOf(pool, () => claim(broker, pool, 'alice@example.com'))).toEqual([
			{
				action: 'renew',
				pool,
				member: 'aud-1',
				holder: 'alice@example.com',
				actor: 'broker@example.com',
				detail: 'it had expired',
			},
		]);

		// a release by the holder herself
		const alice = c.context({ actor: 'alice@example.com' });
		expect(
			await recordsOf(pool, () => release(alice, pool, 'aud-1', 'alice@example.com', {})),
		).toEqual([
			{
				action: 'release',
				pool,
				member: 'aud-1',
				holder: 'alice@example.com',
				actor: 'alice@example.com',
			},
			{
				action: 'create',
				pool,
				member: 'aud-1',
				actor: 'alice@example.com',
				detail: 'again from ghcr.io/example/desktop:1 after its release',
			},
		]);
		await waitReady(ops, pool, 2);

		// the console's forced release: the acting identity is the identity named
		await claim(brokerCtx(), pool, 'bob@example.com');
		const root = c.context({ actor: 'root@admin-host' });
		const forced = await recordsOf(pool, () =>
			release(root, pool, 'aud-1', 'root@admin-host', { force: true }),
		);
		expect(forced[0]).toEqual({
			action: 'release',
			pool,
			member: 'aud-1',
			holder: 'bob@example.com',
			actor: 'root@admin-host',
			force: true,
		});
		expect((await eventsOf(pool)).at(-2)?.message).toBe(
			`released aud-1 from bob@example.com by root@admin-host (--force${user ? `, user ${user}` : ''})`,
		);
		await waitReady(ops, pool, 2);

		// the CLI's forced release naming a third identity: both are recorded
		await claim(brokerCtx(), pool, 'carol@example.com');
		const named = await recordsOf(pool, () =>
			release(root, pool, 'aud-1', 'nightshift@example.com', { force: true }),
		);
		expect(named[0]).toEqual({
			action: 'release',
			pool,
			member: 'aud-1',
			holder: 'carol@example.com',
			identity: 'nightshift@example.com',
			actor: 'root@admin-host',
			force: true,
		});
		expect(auditNote(named[0]!)).toBe(
			'released aud-1 from carol@example.com by root@admin-host (--force, as nightshift@example.com)',
		);
		await waitReady(ops, pool, 2);

		// someone naming the holder (no --force needed): the acting identity is still recorded
		await claim(brokerCtx(), pool, 'u6@example.com');
		const mallory = c.context({ actor: 'mallory@example.com' });
		const asHolder = await recordsOf(pool, () =>
			release(mallory, pool, 'aud-1', 'u6@example.com', {}),
		);
		expect(asHolder[0]).toEqual({
			action: 'release',
			pool,
			member: 'aud-1',
			holder: 'u6@example.com',
			actor: 'mallory@example.com',
		});
		expect(auditNote(asHolder[0]!)).toBe(
			'released aud-1 from u6@example.com by mallory@example.com',
		);
		await waitReady(ops, pool, 2);

		// maintenance on and off
		expect(
			await recordsOf(pool, () => setMaintenance(ops, pool, 'aud-2', true, 'disk check')),
		).toEqual([
			{
				action: 'maintenance-on',
				pool,
				member: 'aud-2',
				actor: 'ops@example.com',
				detail: 'disk check',
			},
		]);
		// nothing free: aud-1 claimed, aud-2 in maintenance: a refusal on the pool's ConfigMap
		await claim(brokerCtx(), pool, 'dan@example.com');
		const refused = await recordsOf(pool, async () => {
			const err = await poolError(claim(brokerCtx(), pool, 'erin@example.com'));
			expect(err.message).toBe(
				'pool has no free members (desired 2, claimed 1, unschedulable 0, in maintenance 1)',
			);
		});
		expect(refused).toEqual([
			{
				action: 'claim-refused',
				pool,
				holder: 'erin@example.com',
				actor: 'broker@example.com',
				detail:
					'pool has no free members (desired 2, claimed 1, unschedulable 0, in maintenance 1)',
			},
		]);
		expect(await recordsOf(pool, () => setMaintenance(ops, pool, 'aud-2', false))).toEqual([
			{ action: 'maintenance-off', pool, member: 'aud-2', actor: 'ops@example.com' },
		]);

		// reconcile steps: a changed image replaces the unclaimed member; a smaller size deletes
		const rec = c.context({ actor: 'corral-vdi/reconciler' });
		await writeDefinition(ops, pool, poolSpec({ size: 2, image: 'ghcr.io/example/desktop:2' }));
		const replaced = await recordsOf(pool, () => reconcile(rec, pool));
		expect(replaced).toEqual([
			{
				action: 'replace',
				pool,
				member: 'aud-2',
				actor: 'corral-vdi/reconciler',
				detail: expect.stringMatching(/^drifted.*; from ghcr.io\/example\/desktop:2 \(.*image /),
			},
		]);
		await writeDefinition(ops, pool, poolSpec({ size: 1, image: 'ghcr.io/example/desktop:2' }));
		// a pod under a member's name that is not the pool's: the create fails, never touches it
		expect(await recordsOf(pool, () => reconcile(rec, pool))).toEqual([
			{
				action: 'delete',
				pool,
				member: 'aud-2',
				actor: 'corral-vdi/reconciler',
				detail: 'index 2 is above the pool size 1',
			},
		]);
	});

	it('records a failed reconcile step and a failed release as Warnings in the same shape', async () => {
		const pool = 'audf';
		const ops = c.context({ actor: 'ops@example.com' });
		await apply(ops, pool, poolSpec({ size: 1 }));
		await waitReady(ops, pool, 1);
		// a foreign pod where member 2 would go: the create step fails and leaves it alone
		await c.api.create('pods', {
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name: 'audf-2' },
			spec: { containers: [{ name: 'x', image: 'busybox' }] },
		});
		await writeDefinition(ops, pool, poolSpec({ size: 2 }));
		const failed = await recordsOf(pool, () => reconcile(ops, pool));
		expect(failed).toEqual([
			{
				action: 'reconcile-failed',
				pool,
				member: 'audf-2',
				actor: 'ops@example.com',
				detail: expect.stringMatching(/^create: /),
			},
		]);

		// a release whose PVC cannot go (a finalizer nobody removes) within the delete timeout
		await claim(ops, pool, 'fay@example.com');
		const pvc = (await c.api.get('persistentvolumeclaims', 'audf-1-data'))!;
		const finalizers = pvc.metadata.finalizers ?? [];
		await c.api.patch('persistentvolumeclaims', 'audf-1-data', {
			metadata: { finalizers: [...finalizers, 'example.com/hold'] },
		});
		const quick = c.context({ actor: 'root@admin-host', deleteTimeoutMs: 500 });
		const records = await recordsOf(pool, async () => {
			await poolError(release(quick, pool, 'audf-1', 'root@admin-host', { force: true }));
		});
		expect(records.map((r) => r.action)).toEqual(['release', 'release-failed']);
		expect(records[1]).toMatchObject({
			holder: 'fay@example.com',
			actor: 'root@admin-host',
			force: true,
		});
		const held = (await c.api.get('persistentvolumeclaims', 'audf-1-data'))!;
		await c.api.patch('persistentvolumeclaims', 'audf-1-data', {
			metadata: {
				finalizers: (held.metadata.finalizers ?? []).filter((f) => f !== 'example.com/hold'),
			},
		});
	});

	it('reads back as the audit trail, newest first, filtered by identity, action and pool', async () => {
		const ctx = c.context();
		const all = await readAudit(ctx, { pool: 'aud' });
		const times = all.entries.map((e) => e.time);
		expect([...times].sort((a, b) => b - a)).toEqual(times);
		expect(all.oldest).toBeLessThanOrEqual(times.at(-1)!);
		const byRoot = await readAudit(ctx, { identity: 'root@admin-host' });
		expect(new Set(byRoot.entries.map((e) => e.pool))).toEqual(new Set(['aud', 'audf']));
		const forced = await readAudit(ctx, { pool: 'aud', action: 'force-release' });
		expect(forced.entries.map((e: AuditEntry) => e.holder)).toEqual([
			'carol@example.com',
			'bob@example.com',
		]);
		const refusals = await readAudit(ctx, { action: 'claim-refused' });
		expect(refusals.entries).toHaveLength(1);
		expect(refusals.entries[0]).toMatchObject({
			pool: 'aud',
			holder: 'erin@example.com',
			count: 1,
		});
		const cluster = await readAudit(ctx, { allNamespaces: true, action: 'claim-refused' });
		// every namespace: ours among them (the real control plane's other namespaces are other
		// test files'), its one refusal once
		const ours = cluster.entries.filter((e) => e.namespace === c.ns);
		expect(ours.map((e) => [e.pool, e.holder])).toEqual([['aud', 'erin@example.com']]);
	});

	it('writes one refusal Event per identity per window, counting the refusals it stands for', async () => {
		const pool = 'audr';
		const ops = c.context({ actor: 'ops@example.com' });
		await apply(ops, pool, poolSpec({ size: 1 }));
		await waitReady(ops, pool, 1);
		await claim(ops, pool, 'gil@example.com');
		let now = Date.now();
		const clocked = c.context({ actor: 'broker@example.com', now: () => now });
		for (let i = 0; i < 5; i++) await poolError(claim(clocked, pool, 'hal@example.com'));
		await poolError(claim(clocked, pool, 'ida@example.com'));
		let refusals = (await eventsOf(pool)).filter((e) => e.reason === 'ClaimRefused');
		expect(
			refusals.map((e) => JSON.parse(e.metadata.annotations![AUDIT_ANNOTATION]!).holder),
		).toEqual(['hal@example.com', 'ida@example.com']);
		now += 61_000;
		await poolError(claim(clocked, pool, 'hal@example.com'));
		refusals = (await eventsOf(pool)).filter((e) => e.reason === 'ClaimRefused');
		expect(refusals).toHaveLength(3);
		const last = checkOneFormat(refusals.at(-1)!);
		expect(last).toMatchObject({ holder: 'hal@example.com', count: 5 });
		expect(refusals.at(-1)!.count).toBe(5);
		expect(refusals.at(-1)!.message).toMatch(
			/^refused a claim in pool audr for hal@example.com by broker@example.com \((user [^,]+, )?5 times\): /,
		);
		await waitFor(
			async () => (await readAudit(ops, { pool, action: 'claim-refused' })).entries.length === 3,
			'refusals listed',
		);
		const trail = await readAudit(ops, { pool, action: 'claim-refused' });
		expect(trail.entries.reduce((n, e) => n + e.count, 0)).toBe(7);
	});
});
