/** apply: validate a definition, write it (keeping the recorded status), reconcile once. */

import { isAlreadyExists, isConflict } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import { configMapName, POOL_LABEL, SPEC_KEY } from '../pool/names.js';
import type { ConfigMapObject } from '../pool/objects.js';
import { type PoolSpec, parseSpec, serialiseSpec, validateSpec } from '../pool/spec.js';
import { changingPool } from './claim-snapshot.js';
import { checkPoolName, clusterError } from './cluster-error.js';
import { type EngineContext, emitEvent, suggest } from './context.js';
import { definitionConfigMap, readDefinitionMap } from './definition.js';
import { mergePatchOptions } from './merge-patch.js';
import { type ReconcileResult, reconcileDefinition } from './reconcile.js';

/** How often a write that lost a race is tried again. */
const WRITE_ATTEMPTS = 5;

/**
 * What to write: a whole definition, or a function that makes it from the definition as it
 * is in the cluster at the moment of the write (null when there is none, or none readable).
 * A function is called again after every lost race, so a change by another admin meanwhile
 * is kept rather than written over.
 */
export type SpecInput = PoolSpec | ((current: PoolSpec | null, exists: boolean) => PoolSpec);

function currentSpec(configMap: ConfigMapObject | null, pool: string): PoolSpec | null {
	if (!configMap) return null;
	try {
		return parseSpec(configMap.data?.[SPEC_KEY], pool, { allowPersistent: true });
	} catch {
		return null;
	}
}

/**
 * Writes the definition's spec: creates the ConfigMap, or patches its `spec` key with a
 * compare-and-swap (a merge patch carrying the resourceVersion read; other keys, the status
 * among them, are kept). A lost race reads the
 * definition again and, for a function input, makes the spec again from it. A write that
 * would change nothing is skipped. Resolves with the ConfigMap as stored and the spec.
 */
function writeSpec(
	ctx: EngineContext,
	pool: string,
	input: SpecInput,
	check: (spec: PoolSpec) => PoolSpec,
): Promise<{ configMap: ConfigMapObject; spec: PoolSpec }> {
	return changingPool(ctx, pool, () => writeSpecNow(ctx, pool, input, check));
}

async function writeSpecNow(
	ctx: EngineContext,
	pool: string,
	input: SpecInput,
	check: (spec: PoolSpec) => PoolSpec,
): Promise<{ configMap: ConfigMapObject; spec: PoolSpec }> {
	const name = configMapName(pool);
	const namespace = ctx.namespace;
	for (let attempt = 1; ; attempt++) {
		const current = await readDefinitionMap(ctx, pool);
		const spec = check(
			typeof input === 'function' ? input(currentSpec(current, pool), current !== null) : input,
		);
		const text = serialiseSpec(spec);
		try {
			if (!current) {
				const created = await ctx.kube.core.createNamespacedConfigMap({
					namespace,
					body: definitionConfigMap(pool, namespace, text),
				});
				return { configMap: plainObject<ConfigMapObject>(created), spec };
			}
			if (current.data?.[SPEC_KEY] === text && current.metadata.labels?.[POOL_LABEL] === pool)
				return { configMap: current, spec };
			// A merge patch of the spec key and the pool label, with the resourceVersion read:
			// a compare-and-swap (409 when someone wrote meanwhile) that needs only `patch`,
			// as the seed's permissions grant, never `update`. Other keys stay as they are.
			const patched = await ctx.kube.core.patchNamespacedConfigMap(
				{
					name,
					namespace,
					body: {
						metadata: {
							resourceVersion: current.metadata.resourceVersion ?? '',
							labels: { [POOL_LABEL]: pool },
						},
						data: { [SPEC_KEY]: text },
					},
				},
				mergePatchOptions(),
			);
			return { configMap: plainObject<ConfigMapObject>(patched), spec };
		} catch (err) {
			if ((isConflict(err) || isAlreadyExists(err)) && attempt < WRITE_ATTEMPTS) continue;
			if (isConflict(err) || isAlreadyExists(err))
				throw new PoolError(
					'failed',
					`the definition of pool ${pool} kept changing while it was written (${WRITE_ATTEMPTS} tries); run the command again`,
				);
			throw clusterError(err, {
				verb: current ? 'patch' : 'create',
				resource: 'configmaps',
				namespace,
				name,
			});
		}
	}
}

/** Writes the definition's spec (see writeSpec) and resolves with the ConfigMap as stored. */
export async function writeDefinition(
	ctx: EngineContext,
	pool: string,
	input: SpecInput,
): Promise<ConfigMapObject> {
	return (await writeSpec(ctx, pool, input, (spec) => spec)).configMap;
}

/**
 * Applies a definition: validates it (persistent mode and invalid fields are PoolErrors and
 * write nothing), writes it, then reconciles once. A function input makes the definition
 * from the one in the cluster at the moment of the write (see SpecInput).
 */
export async function apply(
	ctx: EngineContext,
	pool: string,
	input: SpecInput,
): Promise<ReconcileResult> {
	checkPoolName(pool);
	const check = (spec: PoolSpec): PoolSpec => {
		const valid = validateSpec(spec);
		if (valid.size === 0)
			throw new PoolError(
				'usage',
				`size 0 is only for a pool being deleted; to remove pool ${pool} run ${suggest(ctx, `delete ${pool}`)}`,
			);
		return valid;
	};
	// A whole definition is checked before anything is read.
	if (typeof input !== 'function') check(input);
	const { configMap, spec: valid } = await writeSpec(ctx, pool, input, check);
	emitEvent(ctx, {
		pool,
		action: 'apply',
		outcome: 'ok',
		message: `pool ${pool} defined: ${valid.image}, size ${valid.size}`,
	});
	return reconcileDefinition(ctx, pool, { configMap, spec: valid });
}
