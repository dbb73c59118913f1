/** Reading and writing a pool's definition ConfigMap. */

import { isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import { configMapName, POOL_LABEL, SPEC_KEY } from '../pool/names.js';
import type { ConfigMapObject } from '../pool/objects.js';
import { type PoolSpec, parseSpec, type ValidateOptions } from '../pool/spec.js';
import { clusterError } from './cluster-error.js';
import { type EngineContext, suggest } from './context.js';

/** A definition ConfigMap and the spec it holds. */
export interface Definition {
	configMap: ConfigMapObject;
	spec: PoolSpec;
}

/** The text telling how to create a pool that does not exist. */
export function notFoundMessage(
	ctx: Pick<EngineContext, 'namespace' | 'commandScope'>,
	pool: string,
): string {
	return `pool ${pool} not found in namespace ${ctx.namespace} (no ConfigMap ${configMapName(pool)}); create it with ${suggest(ctx, `apply ${pool} --image IMAGE --size N`)}, or pick the namespace with -n`;
}

/** The definition ConfigMap of a pool, or null when there is none. */
export async function readDefinitionMap(
	ctx: EngineContext,
	pool: string,
): Promise<ConfigMapObject | null> {
	const name = configMapName(pool);
	try {
		const cm = await ctx.kube.core.readNamespacedConfigMap({ name, namespace: ctx.namespace });
		return plainObject<ConfigMapObject>(cm);
	} catch (err) {
		if (isNotFound(err)) return null;
		throw clusterError(err, {
			verb: 'get',
			resource: 'configmaps',
			namespace: ctx.namespace,
			name,
		});
	}
}

/**
 * The definition of a pool, validated. Throws PoolError: not-found without a ConfigMap,
 * invalid-spec for a spec that does not parse or validate, persistent for mode: persistent
 * (unless opts.allowPersistent).
 */
export async function readDefinition(
	ctx: EngineContext,
	pool: string,
	opts: ValidateOptions = {},
): Promise<Definition> {
	return definitionOf(ctx, pool, await readDefinitionMap(ctx, pool), opts);
}

/** The definition a ConfigMap read (from the API or a watch-fed cache) holds; throws PoolError. */
export function definitionOf(
	ctx: EngineContext,
	pool: string,
	configMap: ConfigMapObject | null,
	opts: ValidateOptions = {},
): Definition {
	if (!configMap) throw new PoolError('not-found', notFoundMessage(ctx, pool));
	return {
		configMap,
		spec: parseSpec(configMap.data?.[SPEC_KEY], pool, {
			command: (words) => suggest(ctx, words),
			...opts,
		}),
	};
}

/** The ConfigMap object for a new definition. */
export function definitionConfigMap(pool: string, namespace: string, specText: string) {
	return {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name: configMapName(pool), namespace, labels: { [POOL_LABEL]: pool } },
		data: { [SPEC_KEY]: specText },
	};
}
