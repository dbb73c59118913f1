/** apply: validate a definition, write it (keeping the recorded status), reconcile once. */

import type { V1ConfigMap } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import { configMapName, POOL_LABEL, SPEC_KEY } from '../pool/names.js';
import type { ConfigMapObject } from '../pool/objects.js';
import { type PoolSpec, serialiseSpec, validateSpec } from '../pool/spec.js';
import { checkPoolName, clusterError } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';
import { definitionConfigMap, readDefinitionMap } from './definition.js';
import { type ReconcileResult, reconcileDefinition } from './reconcile.js';

/** How often a write that lost a race is tried again. */
const WRITE_ATTEMPTS = 5;

/**
 * Writes the definition's spec: creates the ConfigMap, or updates its `spec` key with a
 * compare-and-swap (other keys, the status among them, are kept). Resolves with the
 * ConfigMap as stored. A write that would change nothing is skipped.
 */
export async function writeDefinition(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
): Promise<ConfigMapObject> {
	const text = serialiseSpec(spec);
	const name = configMapName(pool);
	const namespace = ctx.namespace;
	for (let attempt = 1; ; attempt++) {
		const current = await readDefinitionMap(ctx, pool);
		try {
			if (!current) {
				const created = await ctx.kube.core.createNamespacedConfigMap({
					namespace,
					body: definitionConfigMap(pool, namespace, text),
				});
				return plainObject<ConfigMapObject>(created);
			}
			if (current.data?.[SPEC_KEY] === text && current.metadata.labels?.[POOL_LABEL] === pool)
				return current;
			const body = {
				...current,
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: {
					...current.metadata,
					labels: { ...(current.metadata.labels ?? {}), [POOL_LABEL]: pool },
				},
				data: { ...(current.data ?? {}), [SPEC_KEY]: text },
			};
			const replaced = await ctx.kube.core.replaceNamespacedConfigMap({
				name,
				namespace,
				body: body as unknown as V1ConfigMap,
			});
			return plainObject<ConfigMapObject>(replaced);
		} catch (err) {
			if ((isConflict(err) || isAlreadyExists(err)) && attempt < WRITE_ATTEMPTS) continue;
			throw clusterError(err, {
				verb: current ? 'update' : 'create',
				resource: 'configmaps',
				namespace,
				name,
			});
		}
	}
}

/**
 * Applies a definition: validates it (persistent mode and invalid fields are PoolErrors and
 * write nothing), writes it, then reconciles once.
 */
export async function apply(
	ctx: EngineContext,
	pool: string,
	spec: PoolSpec,
): Promise<ReconcileResult> {
	checkPoolName(pool);
	const valid = validateSpec(spec);
	if (valid.size === 0)
		throw new PoolError(
			'usage',
			`size 0 is only for a pool being deleted; to remove pool ${pool} run ctpool delete ${pool}`,
		);
	const configMap = await writeDefinition(ctx, pool, valid);
	emitEvent(ctx, {
		pool,
		action: 'apply',
		outcome: 'ok',
		message: `pool ${pool} defined: ${valid.image}, size ${valid.size}`,
	});
	return reconcileDefinition(ctx, pool, { configMap, spec: valid });
}
