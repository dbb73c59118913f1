/** Finding the pools to reconcile: the definition ConfigMaps of a namespace, or of every namespace. */

import type { Kube } from '../kube/config.js';
import { isForbidden } from '../kube/errors.js';
import { PoolError } from '../pool/errors.js';
import { POOL_LABEL, poolOfConfigMap } from '../pool/names.js';
import { clusterError } from './cluster-error.js';

/** A pool found by its definition ConfigMap. */
export interface PoolRef {
	namespace: string;
	pool: string;
}

/**
 * The pools defined in the namespace, or in every namespace (null): ConfigMaps carrying the
 * pool label whose name is the pool's definition name, sorted by namespace and pool.
 */
export async function listPoolRefs(kube: Kube, namespace: string | null): Promise<PoolRef[]> {
	const labelSelector = POOL_LABEL;
	let items: Array<{
		metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
	}>;
	try {
		const list =
			namespace === null
				? await kube.core.listConfigMapForAllNamespaces({ labelSelector })
				: await kube.core.listNamespacedConfigMap({ namespace, labelSelector });
		items = list.items;
	} catch (err) {
		if (namespace === null && isForbidden(err))
			throw new PoolError(
				'failed',
				`cannot list configmaps in all namespaces: ${ALL_NAMESPACES_FIX}`,
			);
		throw clusterError(err, {
			verb: 'list',
			resource: 'configmaps',
			...(namespace !== null ? { namespace } : {}),
		});
	}
	const refs: PoolRef[] = [];
	for (const cm of items) {
		const pool = definedPool(cm);
		if (pool) refs.push({ namespace: cm.metadata?.namespace ?? namespace ?? '', pool });
	}
	return refs.sort(
		(a, b) => a.namespace.localeCompare(b.namespace) || a.pool.localeCompare(b.pool),
	);
}

/**
 * The pool a ConfigMap defines: its name is the pool's definition name and it carries the
 * pool's label; else null.
 */
export function definedPool(cm: {
	metadata?: { name?: string; labels?: Record<string, string> };
}): string | null {
	const pool = poolOfConfigMap(cm.metadata?.name ?? '');
	return pool && cm.metadata?.labels?.[POOL_LABEL] === pool ? pool : null;
}

/** The kinds the console and `status -A` list across namespaces. */
const CLUSTER_WIDE_KINDS = ['configmaps', 'persistentvolumeclaims', 'pods', 'leases'] as const;

/** The fix for an identity that cannot list pool objects in every namespace. */
export const ALL_NAMESPACES_FIX =
	'use -n NAMESPACE for one namespace, or ask for a ClusterRole that can list and watch configmaps, persistentvolumeclaims, pods and leases in every namespace (ctpool rbac --all-namespaces prints one)';

/**
 * Checks that the identity may list the pool objects of every namespace (one small list of
 * each kind); throws a PoolError naming the kind refused and the way out when it may not.
 */
export async function checkAllNamespaces(kube: Kube): Promise<void> {
	const labelSelector = POOL_LABEL;
	for (const kind of CLUSTER_WIDE_KINDS) {
		try {
			if (kind === 'configmaps')
				await kube.core.listConfigMapForAllNamespaces({ labelSelector, limit: 1 });
			else if (kind === 'persistentvolumeclaims')
				await kube.core.listPersistentVolumeClaimForAllNamespaces({ labelSelector, limit: 1 });
			else if (kind === 'pods')
				await kube.core.listPodForAllNamespaces({ labelSelector, limit: 1 });
			else await kube.coordination.listLeaseForAllNamespaces({ labelSelector, limit: 1 });
		} catch (err) {
			if (isForbidden(err))
				throw new PoolError(
					'failed',
					`cannot list ${kind} in all namespaces: ${ALL_NAMESPACES_FIX}`,
				);
			throw clusterError(err, { verb: 'list', resource: kind });
		}
	}
}
