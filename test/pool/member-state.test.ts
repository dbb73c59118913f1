import { describe, expect, it } from 'vitest';
import {
	FAILED_WAITING_REASONS,
	groupMembers,
	type MemberObjects,
	memberState,
	memberView,
	notFreeReason,
	type PoolRuleInputs,
	VOLUME_BIND_GRACE_MS,
	waitsForVolume,
} from '../../source/pool/index.js';
import { HASH, lease, NOW, pod, pvc, reconcilerLease } from './fixtures.js';

const pool = { size: 3, sourceHash: HASH };
const view = (m: Partial<MemberObjects>, facts: PoolRuleInputs = pool) =>
	memberView({ name: 'desk-1', index: 1, pod: null, pvc: null, lease: null, ...m }, facts, NOW);

describe('memberState: first rule that matches wins', () => {
	it.each([
		[
			'a deleting pod is Terminating, over everything',
			pod('desk-1', { deleting: true, phase: 'Failed' }),
			pvc('desk-1'),
			'Terminating',
		],
		[
			'a deleting PVC is Terminating',
			pod('desk-1'),
			pvc('desk-1', { deleting: true }),
			'Terminating',
		],
		[
			'a deleting PVC without pod is Terminating, not Stopped',
			null,
			pvc('desk-1', { deleting: true }),
			'Terminating',
		],
		['neither pod nor PVC is Missing', null, null, 'Missing'],
		['a PVC without pod is Stopped', null, pvc('desk-1'), 'Stopped'],
		[
			'a Lost PVC without pod is Stopped (no pod to fail)',
			null,
			pvc('desk-1', { phase: 'Lost' }),
			'Stopped',
		],
		[
			'phase Failed is Failed',
			pod('desk-1', { phase: 'Failed', conditions: [] }),
			pvc('desk-1'),
			'Failed',
		],
		[
			'phase Succeeded is Failed',
			pod('desk-1', { phase: 'Succeeded', conditions: [] }),
			pvc('desk-1'),
			'Failed',
		],
		['a Lost PVC under a pod is Failed', pod('desk-1'), pvc('desk-1', { phase: 'Lost' }), 'Failed'],
		['a pod without PVC is Failed', pod('desk-1'), null, 'Failed'],
		[
			'Pending unschedulable is Unschedulable',
			pod('desk-1', {
				phase: 'Pending',
				conditions: [
					{
						type: 'PodScheduled',
						status: 'False',
						reason: 'Unschedulable',
						message: '0/3 nodes are available: 3 Insufficient memory.',
					},
				],
			}),
			pvc('desk-1'),
			'Unschedulable',
		],
		['Running and Ready is Ready', pod('desk-1'), pvc('desk-1'), 'Ready'],
		[
			'Running not ready is Starting',
			pod('desk-1', { conditions: [{ type: 'Ready', status: 'False' }] }),
			pvc('desk-1'),
			'Starting',
		],
		[
			'Pending and scheduled is Starting',
			pod('desk-1', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] }),
			pvc('desk-1'),
			'Starting',
		],
		[
			'a pod with no status is Starting',
			{ metadata: { name: 'desk-1' } },
			pvc('desk-1'),
			'Starting',
		],
		[
			'ContainerCreating is Starting',
			pod('desk-1', {
				phase: 'Pending',
				conditions: [],
				containerStatuses: [{ name: 'ct', state: { waiting: { reason: 'ContainerCreating' } } }],
			}),
			pvc('desk-1'),
			'Starting',
		],
	])('%s', (_what, p, v, state) => {
		expect(memberState(p, v).state).toBe(state);
	});

	it.each([...FAILED_WAITING_REASONS])(
		'waiting reason %s is Failed, with the reason as message',
		(reason) => {
			const p = pod('desk-1', {
				phase: 'Pending',
				conditions: [],
				containerStatuses: [{ name: 'ct', state: { waiting: { reason, message: 'details' } } }],
			});
			expect(memberState(p, pvc('desk-1'))).toEqual({
				state: 'Failed',
				message: `${reason}: details`,
			});
		},
	);

	it('shows the scheduler message for Unschedulable', () => {
		const msg = '0/3 nodes are available: 3 Insufficient memory.';
		const p = pod('desk-1', {
			phase: 'Pending',
			conditions: [
				{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg },
			],
		});
		expect(memberState(p, pvc('desk-1')).message).toBe(msg);
	});

	it('a pod held back only because its PVC waits for its volume is Starting, never Unschedulable (issue 24, finding 8)', () => {
		const msg =
			'0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
		const p = pod('desk-1', {
			phase: 'Pending',
			conditions: [
				{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg },
			],
		});
		const pending = pvc('desk-1', { phase: 'Pending' });
		const created = Date.parse(pending.metadata.creationTimestamp as string);
		expect(memberState(p, pending, created + 5_000)).toEqual({
			state: 'Starting',
			message: 'waiting for its volume',
		});
		expect(waitsForVolume(memberState(p, pending, created + 5_000))).toBe(true);
		// A slow provisioner (1,000 new members): still a wait, and the message says where to look.
		expect(memberState(p, pending, created + VOLUME_BIND_GRACE_MS)).toEqual({
			state: 'Starting',
			message:
				'waiting for its volume (PVC desk-1-data still Pending after a minute: check its StorageClass and provisioner, kubectl describe pvc desk-1-data)',
		});
		// Without a clock: the same wait, without the long-wait hint.
		expect(memberState(p, pending)).toEqual({
			state: 'Starting',
			message: 'waiting for its volume',
		});
		// Once the PVC is Bound the scheduler's word stands (it is not the volume then).
		expect(memberState(p, pvc('desk-1'), created + 5_000).state).toBe('Unschedulable');
		// Any other scheduler message is capacity: Unschedulable at once.
		const full = pod('desk-1', {
			phase: 'Pending',
			conditions: [
				{
					type: 'PodScheduled',
					status: 'False',
					reason: 'Unschedulable',
					message: '0/3 nodes are available: 3 Insufficient cpu.',
				},
			],
		});
		expect(memberState(full, pending, created + 5_000).state).toBe('Unschedulable');
	});

	it('shows the exit code of a failed pod', () => {
		const p = pod('desk-1', {
			phase: 'Failed',
			conditions: [],
			containerStatuses: [
				{ name: 'ct', state: { terminated: { reason: 'Error', exitCode: 137 } } },
			],
		});
		expect(memberState(p, pvc('desk-1')).message).toBe('Error (exit code 137)');
	});

	it('names the missing PVC', () => {
		expect(memberState(pod('desk-1'), null).message).toBe('data PVC desk-1-data is missing');
	});
});

describe('memberView flags and free', () => {
	it('a Ready, unclaimed, current member within size is free', () => {
		const v = view({ pod: pod('desk-1'), pvc: pvc('desk-1') });
		expect(v).toMatchObject({
			state: 'Ready',
			free: true,
			holder: '',
			drifted: false,
			aboveSize: false,
			node: 'node-a',
		});
	});

	it.each([
		['Starting', { pod: pod('desk-1', { conditions: [] }), pvc: pvc('desk-1') }],
		['Stopped', { pvc: pvc('desk-1') }],
	])('a %s member is free', (state, m) => {
		const v = view(m);
		expect(v.state).toBe(state);
		expect(v.free).toBe(true);
	});

	it.each([
		['Missing', {}],
		['Failed', { pod: pod('desk-1', { phase: 'Failed' }), pvc: pvc('desk-1') }],
		['Terminating', { pod: pod('desk-1', { deleting: true }), pvc: pvc('desk-1') }],
		[
			'Unschedulable',
			{
				pod: pod('desk-1', {
					phase: 'Pending',
					conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
				}),
				pvc: pvc('desk-1'),
			},
		],
	])('a %s member is not free', (state, m) => {
		const v = view(m);
		expect(v.state).toBe(state);
		expect(v.free).toBe(false);
		expect(notFreeReason(v)).toBe(`its state is ${state}`);
	});

	it('a claimed member shows its holder and is not free', () => {
		const v = view({
			pod: pod('desk-1'),
			pvc: pvc('desk-1'),
			lease: lease('desk-1', 'alice@example.com'),
		});
		expect(v).toMatchObject({
			holder: 'alice@example.com',
			claimExpired: false,
			free: false,
			reconciling: false,
		});
		expect(v.claimedAt).toBe(NOW - 5 * 60_000);
		expect(v.leaseExpiresAt).toBe(NOW - 5 * 60_000 + 3600_000);
	});

	it('an expired claim is marked and still not free', () => {
		const v = view({
			pod: pod('desk-1'),
			pvc: pvc('desk-1'),
			lease: lease('desk-1', 'alice@example.com', 61),
		});
		expect(v).toMatchObject({ holder: 'alice@example.com', claimExpired: true, free: false });
		expect(notFreeReason(v)).toMatch(/expired; the claim still protects the desktop/);
	});

	it('a reconciler-held Lease is reconciling, has no user holder, and is not free', () => {
		const v = view({ pod: pod('desk-1'), pvc: pvc('desk-1'), lease: reconcilerLease('desk-1') });
		expect(v).toMatchObject({
			reconciling: true,
			holder: '',
			leaseHolder: 'corral-vdi/reconciler',
			claimExpired: false,
			free: false,
		});
	});

	it('a Lease without holder is not free', () => {
		const l = lease('desk-1', '');
		const v = view({ pod: pod('desk-1'), pvc: pvc('desk-1'), lease: l });
		expect(v.free).toBe(false);
	});

	it('drift compares the pod hash, or the PVC hash without pod', () => {
		expect(view({ pod: pod('desk-1', { hash: 'other' }), pvc: pvc('desk-1') }).drifted).toBe(true);
		expect(view({ pod: pod('desk-1'), pvc: pvc('desk-1', { hash: 'other' }) }).drifted).toBe(false);
		expect(view({ pvc: pvc('desk-1', { hash: 'other' }) }).drifted).toBe(true);
		const drifted = view({ pod: pod('desk-1', { hash: 'other' }), pvc: pvc('desk-1') });
		expect(drifted.free).toBe(false);
	});

	it('a missing member has not drifted, and an unreadable definition means no drift', () => {
		expect(view({}).drifted).toBe(false);
		expect(
			view({ pod: pod('desk-1', { hash: 'x' }), pvc: pvc('desk-1') }, { size: 3, sourceHash: null })
				.drifted,
		).toBe(false);
	});

	it('maintenance is a flag with its reason, and not free', () => {
		const v = view({ pod: pod('desk-1'), pvc: pvc('desk-1', { maintenance: 'disk check' }) });
		expect(v).toMatchObject({ maintenance: true, maintenanceReason: 'disk check', free: false });
		expect(view({ pod: pod('desk-1'), pvc: pvc('desk-1', { maintenance: '' }) }).maintenance).toBe(
			true,
		);
	});

	it('a member above size is flagged and not free', () => {
		const v = memberView(
			{ name: 'desk-4', index: 4, pod: pod('desk-4'), pvc: pvc('desk-4') },
			pool,
			NOW,
		);
		expect(v).toMatchObject({ aboveSize: true, free: false, state: 'Ready' });
	});

	it('age comes from the oldest object', () => {
		expect(view({ pod: pod('desk-1'), pvc: pvc('desk-1') }).createdAt).toBe(
			Date.parse('2026-11-29T08:00:00Z'),
		);
	});
});

describe('groupMembers', () => {
	it('lists 1..size plus existing members above size, by index, ignoring strangers', () => {
		const members = groupMembers('desk', 3, {
			pods: [pod('desk-2'), pod('desk-5'), { metadata: { name: 'desk-3' } }, pod('desk-x')],
			pvcs: [pvc('desk-2'), pvc('desk-10')],
			leases: [lease('desk-1', 'bob'), lease('desk-7', 'carol')],
		});
		expect(members.map((m) => m.name)).toEqual([
			'desk-1',
			'desk-2',
			'desk-3',
			'desk-5',
			'desk-7',
			'desk-10',
		]);
		expect(members[0]?.lease?.spec?.holderIdentity).toBe('bob');
		expect(members[1]?.pod?.metadata.name).toBe('desk-2');
		expect(members[1]?.pvc?.metadata.name).toBe('desk-2-data');
		expect(members[2]?.pod).toBeNull(); // an unlabelled pod is not a member
	});

	it('keeps the objects of a pool whose name prefixes another apart', () => {
		const other = pod('desk-1-1');
		const members = groupMembers('desk', 1, { pods: [other], pvcs: [], leases: [] });
		expect(members.map((m) => m.name)).toEqual(['desk-1']);
		expect(members[0]?.pod).toBeNull();
	});
});
