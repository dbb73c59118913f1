/**
 * delete: set the size to 0, reconcile (which deletes every unclaimed, not-in-maintenance
 * member), then delete the definition, unless a member is left; then the definition stays
 * and the error names each member and why.
 */

import { isConflict, isNotFound } from '../kube/errors.js';
import { PoolError } from '../pool/errors.js';
import { configMapName, SPEC_KEY } from '../pool/names.js';
import { parseSpec } from '../pool/spec.js';
import type { StatusMember } from '../pool/status.js';
import { bounded } from '../text/sanitize.js';
import { writeDefinition } from './apply.js';
import { changingPool } from './claim-snapshot.js';
import { checkPoolName, clusterError } from './cluster-error.js';
import { type EngineContext, emitEvent, suggest } from './context.js';
import { readDefinition, readDefinitionMap } from './definition.js';
import { reconcileDefinition } from './reconcile.js';

/** Why a member keeps the pool's definition in place, with the fix. */
function blocker(
	ctx: EngineContext,
	pool: string,
	m: StatusMember,
	errors: string[],
): string | null {
	const failed = errors.find((e) => e.split(' ')[1] === `${m.name}:`);
	if (failed) return failed;
	if (m.holder)
		return `${m.name} is claimed by ${bounded(m.holder)} (release it: ${suggest(ctx, `release ${pool} ${m.name} ${bounded(m.holder)}`)}, or with --force)`;
	if (m.maintenance)
		return `${m.name} is in maintenance (turn it off: ${suggest(ctx, `maintenance ${pool} ${m.name} off`)})`;
	if (m.state === 'Terminating') return `${m.name} is still being deleted`;
	if (m.state !== 'Missing')
		return `${m.name} still exists (${m.state}; another reconciler may be working on it)`;
	return null;
}

/** Deletes a pool. Throws PoolError('failed') naming each member that kept the definition. */
export async function deletePool(ctx: EngineContext, pool: string): Promise<void> {
	checkPoolName(pool);
	const definition = await readDefinition(ctx, pool);
	emitEvent(ctx, { pool, action: 'delete', outcome: 'start', message: `deleting pool ${pool}` });
	let configMap = definition.configMap;
	const spec = { ...definition.spec, size: 0 };
	if (definition.spec.size !== 0) configMap = await writeDefinition(ctx, pool, spec);
	const result = await reconcileDefinition(ctx, pool, { configMap, spec });
	const reasons = result.status.members
		.map((m) => blocker(ctx, pool, m, result.errors))
		.filter((r): r is string => r !== null);
	if (reasons.length > 0) {
		const message = `pool ${pool} keeps its definition (size 0): ${reasons.join('; ')}; then run ${suggest(ctx, `delete ${pool}`)} again`;
		emitEvent(ctx, { pool, action: 'delete', outcome: 'error', message });
		throw new PoolError('failed', message);
	}
	await deleteDefinition(ctx, pool);
	emitEvent(ctx, { pool, action: 'delete', outcome: 'ok', message: `pool ${pool} deleted` });
}

/**
 * Deletes the definition ConfigMap with a resourceVersion precondition, as long as it still
 * says size 0 (a concurrent apply wins: its pool is kept).
 */
function deleteDefinition(ctx: EngineContext, pool: string): Promise<void> {
	return changingPool(ctx, pool, () => deleteDefinitionNow(ctx, pool));
}

async function deleteDefinitionNow(ctx: EngineContext, pool: string): Promise<void> {
	const name = configMapName(pool);
	for (let attempt = 1; attempt <= 5; attempt++) {
		const current = await readDefinitionMap(ctx, pool);
		if (!current) return;
		let size: number | null = null;
		try {
			size = parseSpec(current.data?.[SPEC_KEY], pool).size;
		} catch {
			size = null;
		}
		if (size !== 0)
			throw new PoolError(
				'failed',
				`pool ${pool} was defined again while it was being deleted; it was kept`,
			);
		try {
			await ctx.kube.core.deleteNamespacedConfigMap({
				name,
				namespace: ctx.namespace,
				body: { preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' } },
			});
			return;
		} catch (err) {
			if (isNotFound(err)) return;
			if (isConflict(err)) continue;
			throw clusterError(err, {
				verb: 'delete',
				resource: 'configmaps',
				namespace: ctx.namespace,
				name,
			});
		}
	}
	throw new PoolError(
		'failed',
		`the definition of pool ${pool} kept changing; run ${suggest(ctx, `delete ${pool}`)} again`,
	);
}
