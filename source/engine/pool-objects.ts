/** Listing a pool's pods, PVCs and Leases: three label-selector lists, no per-member reads. */

import { memberIndex, memberOfLease, memberOfOlderLease, POOL_LABEL } from '../pool/names.js';
import type { LeaseObject, PodObject, PvcObject } from '../pool/objects.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';

/** The pool's objects of each kind, as plain JSON. */
export interface ListedObjects {
	pods: PodObject[];
	pvcs: PvcObject[];
	leases: LeaseObject[];
	/** Claim Leases of an older Corral broker (`corral-vdi-<member>`) on the pool's members. */
	olderLeases: LeaseObject[];
}

/** The label selector of one pool, or of every pool when pool is omitted. */
export function poolSelector(pool?: string): string {
	return pool === undefined ? POOL_LABEL : `${POOL_LABEL}=${pool}`;
}

/**
 * Lists the pods, PVCs and Leases of a pool (or of every pool) in the context's namespace;
 * the Leases include those named as a member's Lease that lack the pool's labels.
 */
export async function listPoolObjects(ctx: EngineContext, pool?: string): Promise<ListedObjects> {
	const namespace = ctx.namespace;
	const labelSelector = poolSelector(pool);
	// Raw JSON: the objects stay as the API serves them, without client-node's model classes
	// and the walk back to plain JSON (most of the CPU of a list of a big pool).
	const list = <T>(
		prefix: string,
		resource: string,
		what: string,
		selector: string | null = labelSelector,
	): Promise<T[]> =>
		ctx.kube
			.readJson<{ items?: T[] }>(
				`${prefix}/namespaces/${encodeURIComponent(namespace)}/${resource}`,
				selector === null ? {} : { labelSelector: selector },
			)
			.then(
				(answer) => answer.items ?? [],
				(err: unknown) => {
					throw clusterError(err, { verb: 'list', resource: what, namespace });
				},
			);
	// Leases unselected: one under a member's name without the pool's labels blocks that member
	// (its name is taken), so it must be seen to be reported. Leases are few in a namespace.
	const [pods, pvcs, allLeases] = await Promise.all([
		list<PodObject>('/api/v1', 'pods', 'pods'),
		list<PvcObject>('/api/v1', 'persistentvolumeclaims', 'persistentvolumeclaims'),
		list<LeaseObject>('/apis/coordination.k8s.io/v1', 'leases', 'leases.coordination.k8s.io', null),
	]);
	const olderLeases = allLeases.filter((l) => {
		const member = memberOfOlderLease(l);
		return member !== null && (pool === undefined || memberIndex(pool, member) !== null);
	});
	const leases = allLeases.filter((l) => {
		const labelled = l.metadata.labels?.[POOL_LABEL];
		if (labelled !== undefined && (pool === undefined || labelled === pool)) return true;
		const member = memberOfLease(l.metadata.name ?? '');
		return member !== null && (pool === undefined || memberIndex(pool, member) !== null);
	});
	return { pods, pvcs, leases, olderLeases };
}
