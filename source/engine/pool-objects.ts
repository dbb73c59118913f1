/** Listing a pool's pods, PVCs and Leases: three label-selector lists, no per-member reads. */

import { plainObject } from '../kube/objects.js';
import { POOL_LABEL } from '../pool/names.js';
import type { LeaseObject, PodObject, PvcObject } from '../pool/objects.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';

/** The pool's objects of each kind, as plain JSON. */
export interface ListedObjects {
	pods: PodObject[];
	pvcs: PvcObject[];
	leases: LeaseObject[];
}

/** The label selector of one pool, or of every pool when pool is omitted. */
export function poolSelector(pool?: string): string {
	return pool === undefined ? POOL_LABEL : `${POOL_LABEL}=${pool}`;
}

/** Lists the pods, PVCs and Leases of a pool (or of every pool) in the context's namespace. */
export async function listPoolObjects(ctx: EngineContext, pool?: string): Promise<ListedObjects> {
	const namespace = ctx.namespace;
	const labelSelector = poolSelector(pool);
	const fail = (resource: string) => (err: unknown) => {
		throw clusterError(err, { verb: 'list', resource, namespace });
	};
	const [pods, pvcs, leases] = await Promise.all([
		ctx.kube.core.listNamespacedPod({ namespace, labelSelector }).catch(fail('pods')),
		ctx.kube.core
			.listNamespacedPersistentVolumeClaim({ namespace, labelSelector })
			.catch(fail('persistentvolumeclaims')),
		ctx.kube.coordination
			.listNamespacedLease({ namespace, labelSelector })
			.catch(fail('leases.coordination.k8s.io')),
	]);
	return {
		pods: pods.items.map((o) => plainObject<PodObject>(o)),
		pvcs: pvcs.items.map((o) => plainObject<PvcObject>(o)),
		leases: leases.items.map((o) => plainObject<LeaseObject>(o)),
	};
}
