import { describe, expect, it } from 'vitest';
import {
	CLOCK_SKEW_ALLOWANCE_MS,
	groupMembers,
	isCorralStartedPod,
	isPoolObject,
	leaseTimeProblem,
	type PodObject,
	RECONCILER_IDENTITY,
} from '../../source/pool/index.js';
import { NOW } from './fixtures.js';

const ours = { 'corral.dev/vdi-ct-pool': 'desk', 'corral.dev/vdi-ct-member': 'desk-7' };

describe("isPoolObject: the one rule of what is the pool's", () => {
	it.each([
		['pod', { labels: ours }, true],
		['PVC', { labels: ours }, true],
		['Lease', { labels: ours }, true],
		['pod', { labels: { app: 'payroll-db' } }, false],
		['pod', {}, false],
		['PVC', { labels: { 'corral.dev/vdi-ct-pool': 'desk' } }, false],
		['Lease', { labels: { ...ours, 'corral.dev/vdi-ct-member': 'desk-8' } }, false],
		['Lease', { labels: { ...ours, 'corral.dev/vdi-ct-pool': 'other' } }, false],
	] as const)('%s %j -> %s', (kind, metadata, expected) => {
		expect(isPoolObject('desk', 'desk-7', kind, { metadata })).toBe(expected);
	});

	it.each([
		[{ selector: { 'corral.dev/ct-name': 'desk-7' } }, true],
		[{ selector: { 'corral.dev/ct-name': 'desk-8' } }, false],
		[{ selector: { 'corral.dev/ct-name': 'desk-7', app: 'x' } }, false],
		[{ selector: {} }, false],
		[{}, false],
		[undefined, false],
	])('Service spec %j -> %s', (spec, expected) => {
		expect(isPoolObject('desk', 'desk-7', 'Service', { metadata: {}, spec })).toBe(expected);
	});
});

describe('leaseTimeProblem', () => {
	const lease = (holder: string, at: number, seconds: number) => ({
		metadata: {},
		spec: {
			holderIdentity: holder,
			leaseDurationSeconds: seconds,
			acquireTime: new Date(at).toISOString(),
			renewTime: new Date(at).toISOString(),
		},
	});
	it("accepts times within the skew allowance, and the reconciler's 600 s", () => {
		expect(
			leaseTimeProblem(lease(RECONCILER_IDENTITY, NOW + CLOCK_SKEW_ALLOWANCE_MS, 600), NOW),
		).toBeNull();
		expect(leaseTimeProblem(lease('kim', NOW - 1000, 3600), NOW)).toBeNull();
	});
	it('reports times beyond it, for any holder', () => {
		expect(leaseTimeProblem(lease('kim', NOW + CLOCK_SKEW_ALLOWANCE_MS + 1000, 3600), NOW)).toMatch(
			/renewTime .* is in the future/,
		);
	});
	it('reports a reconciler Lease lasting longer than a reconciler takes', () => {
		expect(leaseTimeProblem(lease(RECONCILER_IDENTITY, NOW, 86_400), NOW)).toContain(
			'lasts 86400 s',
		);
		expect(leaseTimeProblem(lease('kim', NOW, 86_400), NOW)).toBeNull();
	});
});

describe("groupMembers and objects not the pool's", () => {
	const stranger = (name: string) => ({ metadata: { name, labels: { app: 'billing' } } });
	it('marks a member within size, and ignores a name far above it', () => {
		const members = groupMembers('desk', 3, {
			pods: [stranger('desk-2')],
			pvcs: [stranger('desk-9-data')],
			leases: [stranger('corral-vdi-ct-desk-3'), stranger('corral-vdi-ct-desk-99')],
		});
		expect(members.map((m) => [m.name, m.foreign ?? [], m.pod ?? null])).toEqual([
			['desk-1', [], null],
			['desk-2', ['pod'], null],
			['desk-3', ['Lease'], null],
		]);
	});
});

describe("isCorralStartedPod: the member's pod started by `corral ct start`", () => {
	const pvc = { metadata: { name: 'desk-7-data', labels: ours } };
	const corralLabels = { 'corral.dev/ct': 'true', 'corral.dev/ct-name': 'desk-7' };
	const data = { name: 'data', persistentVolumeClaim: { claimName: 'desk-7-data' } };
	const token = { name: 'kube-api-access-x', projected: {} };
	const pod = (labels: Record<string, string>, volumes: unknown[], name = 'desk-7') => ({
		metadata: { name, labels },
		spec: { volumes: volumes as NonNullable<PodObject['spec']>['volumes'] },
	});
	it.each([
		["Corral's pod on the member's PVC", pod(corralLabels, [data]), pvc, true],
		['with the token volume the server adds', pod(corralLabels, [data, token]), pvc, true],
		[
			'another PVC',
			pod(corralLabels, [{ name: 'data', persistentVolumeClaim: { claimName: 'x' } }]),
			pvc,
			false,
		],
		[
			'a second PVC beside it',
			pod(corralLabels, [data, { name: 'b', persistentVolumeClaim: { claimName: 'x' } }]),
			pvc,
			false,
		],
		[
			'a host path beside it',
			pod(corralLabels, [data, { name: 'h', hostPath: { path: '/' } }]),
			pvc,
			false,
		],
		['no volume', pod(corralLabels, []), pvc, false],
		['no Corral labels', pod({}, [data]), pvc, false],
		[
			'ct-name of another member',
			pod({ ...corralLabels, 'corral.dev/ct-name': 'desk-8' }, [data]),
			pvc,
			false,
		],
		[
			"another pool's label",
			pod({ ...corralLabels, 'corral.dev/vdi-ct-pool': 'other' }, [data]),
			pvc,
			false,
		],
		[
			"a PVC that is not the pool's",
			pod(corralLabels, [data]),
			{ metadata: { name: 'desk-7-data', labels: {} } },
			false,
		],
		['no PVC', pod(corralLabels, [data]), null, false],
		['another name', pod(corralLabels, [data], 'desk-8'), pvc, false],
	] as const)('%s -> %s', (_what, p, claim, expected) => {
		expect(isCorralStartedPod('desk', 'desk-7', p, claim)).toBe(expected);
	});

	it("groupMembers counts it as the member's pod, not a stranger's", () => {
		const [m] = groupMembers('desk', 7, {
			pods: [],
			pvcs: [pvc],
			leases: [],
			corralPods: [pod(corralLabels, [data])],
		}).filter((x) => x.name === 'desk-7');
		expect(m?.pod?.metadata.name).toBe('desk-7');
		expect(m?.foreign ?? []).toEqual([]);
	});
});
