/** Finding the pools to reconcile: the definition ConfigMaps of a namespace, or of every namespace. */

import type { Kube } from '../kube/config.js';
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
		throw clusterError(err, {
			verb: 'list',
			resource: 'configmaps',
			...(namespace !== null ? { namespace } : {}),
		});
	}
	const refs: PoolRef[] = [];
	for (const cm of items) {
		const pool = poolOfConfigMap(cm.metadata?.name ?? '');
		if (!pool || cm.metadata?.labels?.[POOL_LABEL] !== pool) continue;
		refs.push({ namespace: cm.metadata?.namespace ?? namespace ?? '', pool });
	}
	return refs.sort(
		(a, b) => a.namespace.localeCompare(b.namespace) || a.pool.localeCompare(b.pool),
	);
}
