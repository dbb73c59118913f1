import {
	type LeaseObject,
	MAINTENANCE_ANNOTATION,
	MEMBER_LABEL,
	POOL_LABEL,
	type PodObject,
	type PvcObject,
	RECONCILER_IDENTITY,
	SOURCE_LABEL,
} from '../../source/pool/index.js';

/** The hash every fixture member carries unless told otherwise. */
export const HASH = 'aaaaaaaaaaaaaaaa';
/** A fixed "now": 2026-11-29T10:00:00Z. */
export const NOW = Date.parse('2026-11-29T10:00:00Z');

/** A pod of member name in the given phase, with optional conditions and container state. */
export function pod(
	name: string,
	over: Partial<PodObject['status']> & { hash?: string; deleting?: boolean; node?: string } = {},
): PodObject {
	const { hash = HASH, deleting, node = 'node-a', ...status } = over;
	return {
		metadata: {
			name,
			labels: { [POOL_LABEL]: 'desk', [MEMBER_LABEL]: name, [SOURCE_LABEL]: hash },
			creationTimestamp: '2026-11-29T09:00:00Z',
			...(deleting ? { deletionTimestamp: '2026-11-29T09:59:00Z' } : {}),
		},
		spec: { nodeName: node },
		status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], ...status },
	};
}

/** A PVC of member name. */
export function pvc(
	member: string,
	over: { phase?: string; hash?: string; deleting?: boolean; maintenance?: string } = {},
): PvcObject {
	return {
		metadata: {
			name: `${member}-data`,
			labels: { [POOL_LABEL]: 'desk', [MEMBER_LABEL]: member, [SOURCE_LABEL]: over.hash ?? HASH },
			annotations:
				over.maintenance !== undefined ? { [MAINTENANCE_ANNOTATION]: over.maintenance } : {},
			creationTimestamp: '2026-11-29T08:00:00Z',
			...(over.deleting ? { deletionTimestamp: '2026-11-29T09:59:00Z' } : {}),
		},
		status: { phase: over.phase ?? 'Bound' },
	};
}

/** A Lease on member held by holder, acquired minutesAgo before NOW. */
export function lease(member: string, holder: string, minutesAgo = 5, seconds = 3600): LeaseObject {
	const t = new Date(NOW - minutesAgo * 60_000).toISOString();
	return {
		metadata: {
			name: `corral-vdi-ct-${member}`,
			labels: { [POOL_LABEL]: 'desk', [MEMBER_LABEL]: member },
		},
		spec: { holderIdentity: holder, leaseDurationSeconds: seconds, acquireTime: t, renewTime: t },
	};
}

/** The reconciler's Lease on member. */
export function reconcilerLease(member: string, minutesAgo = 1): LeaseObject {
	return lease(member, RECONCILER_IDENTITY, minutesAgo, 600);
}
