import { describe, expect, it } from 'vitest';
import {
	buildStatus,
	countMembers,
	describeDrift,
	formatMicroTime,
	groupMembers,
	leaseExpired,
	memberView,
	noFreeMessage,
	parseStatus,
	sameStatus,
	shortfall,
	sourceHash,
	sourceJson,
	validateSpec,
} from '../../source/pool/index.js';
import { HASH, lease, NOW, pod, pvc, reconcilerLease } from './fixtures.js';

describe('source hash', () => {
	const spec = validateSpec({ image: 'ghcr.io/example/desktop:1', size: 3, memory: '2Gi' });

	it('is the first 16 hex digits of SHA-256 over the sorted source JSON', () => {
		expect(sourceJson(spec)).toBe(
			'{"cpu":"1","disk":"5Gi","image":"ghcr.io/example/desktop:1","init":false,"memory":"2Gi","privileged":false,"storageClass":""}',
		);
		expect(sourceHash(spec)).toMatch(/^[0-9a-f]{16}$/);
		// computed independently: sha256 of the JSON above, first 16 hex digits
		expect(sourceHash(spec)).toBe('9d98773be6fe5fa2');
	});

	it('ignores size and mode, and changes with any source field', () => {
		expect(sourceHash({ ...spec, size: 9 } as typeof spec)).toBe(sourceHash(spec));
		for (const change of [
			{ image: 'ubuntu' },
			{ cpu: '2' },
			{ memory: '1Gi' },
			{ disk: '6Gi' },
			{ storageClass: 'x' },
			{ privileged: true },
			{ init: true },
		]) {
			expect(sourceHash({ ...spec, ...change })).not.toBe(sourceHash(spec));
		}
	});

	it('treats quantities as written', () => {
		expect(sourceHash({ ...spec, memory: '2048Mi' })).not.toBe(sourceHash(spec));
	});

	it('describes what drifted', () => {
		expect(describeDrift({ ...spec, image: 'old:1', memory: '1Gi' }, spec)).toEqual([
			'image old:1 -> ghcr.io/example/desktop:1',
			'memory 1Gi -> 2Gi',
		]);
		expect(describeDrift(null, spec)).toEqual([]);
	});
});

describe('leases', () => {
	it('expire at renewTime (or acquireTime) plus the duration', () => {
		const l = lease('desk-1', 'alice', 59);
		expect(leaseExpired(l, NOW)).toBe(false);
		expect(leaseExpired(l, NOW + 60_000)).toBe(true);
		const acquiredOnly = { ...l, spec: { ...l.spec, renewTime: undefined } };
		expect(leaseExpired(acquiredOnly, NOW)).toBe(false);
	});

	it('a Lease with no time counts as expired', () => {
		expect(
			leaseExpired({ metadata: {}, spec: { holderIdentity: 'x', leaseDurationSeconds: 10 } }, NOW),
		).toBe(true);
	});

	it('formats MicroTime with six fractional digits', () => {
		expect(formatMicroTime(Date.parse('2026-11-29T10:00:00.123Z'))).toBe(
			'2026-11-29T10:00:00.123000Z',
		);
	});
});

describe('status', () => {
	const members = groupMembers('desk', 4, {
		pods: [
			pod('desk-1'),
			pod('desk-2'),
			pod('desk-3', {
				phase: 'Pending',
				conditions: [
					{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'no room' },
				],
			}),
			pod('desk-5'),
		],
		pvcs: [pvc('desk-1'), pvc('desk-2'), pvc('desk-3'), pvc('desk-5')],
		leases: [lease('desk-1', 'alice@example.com'), reconcilerLease('desk-5')],
	});
	const views = members.map((m) => memberView(m, { size: 4, sourceHash: HASH }, NOW));

	it('counts desired, observed, ready, claimed, free and unschedulable', () => {
		expect(countMembers(4, views)).toEqual({
			desired: 4,
			observed: 4,
			ready: 3,
			claimed: 1,
			free: 1,
			unschedulable: 1,
			failed: 0,
			expired: 0,
			drifted: 0,
			exhausted: false,
			claimableNow: 1,
			claimableSoon: 0,
		});
	});

	it('accounts for every desired member once in the shortfall, and names each reason in the no-free text', () => {
		const s = shortfall(4, views);
		expect(s).toEqual({
			desired: 4,
			claimed: 1,
			foreign: 0,
			rebuilding: 1,
			maintenance: 0,
			failed: 0,
			unschedulable: 1,
			drifted: 0,
			free: 1,
		});
		const { desired, ...parts } = s;
		expect(Object.values(parts).reduce((a, b) => a + b, 0)).toBe(desired);
		expect(noFreeMessage({ ...s, free: 0, rebuilding: 2 })).toBe(
			'pool has no free members (desired 4, claimed 1, unschedulable 1, being rebuilt 2)',
		);
		expect(
			noFreeMessage({
				desired: 6,
				claimed: 1,
				foreign: 0,
				rebuilding: 1,
				maintenance: 1,
				failed: 1,
				unschedulable: 1,
				drifted: 1,
				free: 0,
			}),
		).toBe(
			'pool has no free members (desired 6, claimed 1, unschedulable 1, being rebuilt 1, failed 1, in maintenance 1, drifted 1)',
		);
	});

	it('builds the contract JSON with one row per member', () => {
		const s = buildStatus(4, views, ['create desk-4: boom'], NOW);
		expect(s.observedAt).toBe('2026-11-29T10:00:00Z');
		expect(s.reconciler).toBe('corral-vdi/reconciler');
		expect(s.members.map((m) => [m.name, m.state])).toEqual([
			['desk-1', 'Ready'],
			['desk-2', 'Ready'],
			['desk-3', 'Unschedulable'],
			['desk-4', 'Missing'],
			['desk-5', 'Ready'],
		]);
		expect(s.members[0]).toEqual({
			name: 'desk-1',
			index: 1,
			state: 'Ready',
			holder: 'alice@example.com',
			claimExpired: false,
			maintenance: false,
			drifted: false,
			aboveSize: false,
			node: 'node-a',
			message: '',
		});
		expect(s.members[2]?.message).toBe('no room');
		expect(s.members[4]?.aboveSize).toBe(true);
		expect(s.errors).toEqual(['create desk-4: boom']);
	});

	it('is exhausted when members exist but none is free', () => {
		const claimed = views.map((v) => ({ ...v, free: false }));
		expect(countMembers(4, claimed).exhausted).toBe(true);
		expect(countMembers(0, []).exhausted).toBe(false);
	});

	it('compares without observedAt, and parses what it wrote', () => {
		const a = buildStatus(4, views, [], NOW);
		const b = buildStatus(4, views, [], NOW + 5000);
		expect(sameStatus(a, b)).toBe(true);
		expect(sameStatus(a, buildStatus(4, views, ['x'], NOW))).toBe(false);
		expect(parseStatus(JSON.stringify(a))).toEqual(a);
		expect(parseStatus('{nope')).toBeNull();
		expect(parseStatus(undefined)).toBeNull();
	});
});
