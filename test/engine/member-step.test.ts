import { describe, expect, it } from 'vitest';
import { buildPod, buildPvc, planStep } from '../../source/engine/index.js';
import { podFromPvc, pvcSource } from '../../source/engine/member-objects.js';
import { RECONCILER_IDENTITY } from '../../source/pool/errors.js';
import { type MemberObjects, memberView } from '../../source/pool/member-state.js';
import { sourceHash } from '../../source/pool/source-hash.js';
import { sourceFields } from '../../source/pool/spec.js';
import { HASH, lease, NOW, pod, pvc } from '../pool/fixtures.js';
import { poolSpec } from '../support/pool-spec.js';

const failedPod = (name: string) => pod(name, { phase: 'Failed' });

type Case = [string, Omit<MemberObjects, 'name' | 'index'>, number, ReturnType<typeof planStep>];

// [what, objects of desk-2, pool size, step]
const CASES: Case[] = [
	['missing within size: create', {}, 3, 'create'],
	['missing above size: nothing', {}, 1, null],
	['missing, a user holds the Lease: hands off', { lease: lease('desk-2', 'al@x') }, 3, null],
	['stopped: start', { pvc: pvc('desk-2') }, 3, 'start'],
	[
		'stopped and claimed: start',
		{ pvc: pvc('desk-2'), lease: lease('desk-2', 'al@x') },
		3,
		'start',
	],
	['stopped and drifted: replace', { pvc: pvc('desk-2', { hash: 'b'.repeat(16) }) }, 3, 'replace'],
	[
		'stopped, drifted, claimed: start',
		{ pvc: pvc('desk-2', { hash: 'b'.repeat(16) }), lease: lease('desk-2', 'al@x') },
		3,
		'start',
	],
	['stopped above size: delete', { pvc: pvc('desk-2') }, 1, 'delete'],
	['stopped in maintenance: start', { pvc: pvc('desk-2', { maintenance: 'x' }) }, 1, 'start'],
	['ready: nothing', { pod: pod('desk-2'), pvc: pvc('desk-2') }, 3, null],
	[
		'drifted: replace',
		{ pod: pod('desk-2', { hash: 'b'.repeat(16) }), pvc: pvc('desk-2') },
		3,
		'replace',
	],
	[
		'drifted and claimed: nothing',
		{
			pod: pod('desk-2', { hash: 'b'.repeat(16) }),
			pvc: pvc('desk-2'),
			lease: lease('desk-2', 'al@x'),
		},
		3,
		null,
	],
	[
		'drifted, claim expired: nothing',
		{
			pod: pod('desk-2', { hash: 'b'.repeat(16) }),
			pvc: pvc('desk-2'),
			lease: lease('desk-2', 'al@x', 120),
		},
		3,
		null,
	],
	[
		'drifted in maintenance: nothing',
		{ pod: pod('desk-2', { hash: 'b'.repeat(16) }), pvc: pvc('desk-2', { maintenance: '' }) },
		3,
		null,
	],
	['failed: replace', { pod: failedPod('desk-2'), pvc: pvc('desk-2') }, 3, 'replace'],
	[
		'failed and claimed: nothing',
		{ pod: failedPod('desk-2'), pvc: pvc('desk-2'), lease: lease('desk-2', 'al@x') },
		3,
		null,
	],
	['pod without PVC: replace', { pod: pod('desk-2') }, 3, 'replace'],
	['above size: delete', { pod: pod('desk-2'), pvc: pvc('desk-2') }, 1, 'delete'],
	[
		'above size and claimed: nothing',
		{ pod: pod('desk-2'), pvc: pvc('desk-2'), lease: lease('desk-2', 'al@x') },
		1,
		null,
	],
	[
		'above size in maintenance: nothing',
		{ pod: pod('desk-2'), pvc: pvc('desk-2', { maintenance: 'm' }) },
		1,
		null,
	],
	['terminating: nothing', { pod: pod('desk-2', { deleting: true }), pvc: pvc('desk-2') }, 3, null],
	[
		'unschedulable: nothing',
		{
			pod: pod('desk-2', {
				phase: 'Pending',
				conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
			}),
			pvc: pvc('desk-2'),
		},
		3,
		null,
	],
	[
		'live reconciler Lease: nothing',
		{ lease: lease('desk-2', RECONCILER_IDENTITY, 5, 600) },
		3,
		null,
	],
	[
		'expired reconciler Lease: take over and create',
		{ lease: lease('desk-2', RECONCILER_IDENTITY, 11, 600) },
		3,
		'create',
	],
	[
		'expired reconciler Lease on a ready member: take over and make it again',
		{
			pod: pod('desk-2'),
			pvc: pvc('desk-2'),
			lease: lease('desk-2', RECONCILER_IDENTITY, 11, 600),
		},
		3,
		'replace',
	],
	[
		'expired reconciler Lease on a stopped member: take over and make it again',
		{ pvc: pvc('desk-2'), lease: lease('desk-2', RECONCILER_IDENTITY, 11, 600) },
		3,
		'replace',
	],
	[
		'expired reconciler Lease above size: take over and delete',
		{
			pod: pod('desk-2'),
			pvc: pvc('desk-2'),
			lease: lease('desk-2', RECONCILER_IDENTITY, 11, 600),
		},
		1,
		'delete',
	],
	[
		'expired reconciler Lease, nothing left above size: take over the Lease only',
		{ lease: lease('desk-2', RECONCILER_IDENTITY, 11, 600) },
		1,
		'takeover',
	],
	[
		'expired reconciler Lease in maintenance: take over the Lease only',
		{
			pod: pod('desk-2'),
			pvc: pvc('desk-2', { maintenance: 'x' }),
			lease: lease('desk-2', RECONCILER_IDENTITY, 11, 600),
		},
		3,
		'takeover',
	],
	[
		'live reconciler Lease on a ready member: nothing',
		{ pod: pod('desk-2'), pvc: pvc('desk-2'), lease: lease('desk-2', RECONCILER_IDENTITY, 9, 600) },
		3,
		null,
	],
];

describe('planStep', () => {
	for (const [what, objs, size, step] of CASES) {
		it(what, () => {
			const view = memberView(
				{ name: 'desk-2', index: 2, ...objs },
				{ size, sourceHash: HASH },
				NOW,
			);
			expect(planStep(view, NOW)).toBe(step);
		});
	}
});

describe('member objects', () => {
	it('a PVC and pod built from a source start again from the source the PVC records', () => {
		const spec = poolSpec({ privileged: true, storageClass: 'fast' });
		const claim = buildPvc('desk', 'desk-1', 'corral', spec);
		const { cpu: _cpu, ...rest } = sourceFields(spec);
		expect(pvcSource(claim)).toMatchObject(rest);
		expect(podFromPvc('desk', 'desk-1', 'corral', claim)).toEqual(
			buildPod('desk', 'desk-1', 'corral', spec),
		);
		expect(claim.metadata?.labels?.['corral.dev/vdi-ct-source']).toBe(
			sourceHash(sourceFields(spec)),
		);
		expect(claim.spec?.storageClassName).toBe('fast');
	});

	it('an unreadable CT spec annotation gives no source', () => {
		const withSpec = (annotations?: Record<string, string>) => ({ metadata: { annotations } });
		expect(pvcSource(withSpec())).toBeNull();
		expect(pvcSource(withSpec({ 'corral.ct/spec': '{' }))).toBeNull();
		expect(pvcSource(withSpec({ 'corral.ct/spec': '{"image": 3}' }))).toBeNull();
		expect(pvcSource(withSpec({ 'corral.ct/spec': '{"image": "a", "cpu": "two"}' }))).toBeNull();
		expect(pvcSource(withSpec({ 'corral.ct/spec': '{"image": "a", "cpu": 1.5}' }))).toBeNull();
	});
});
