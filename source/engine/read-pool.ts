/** readPool and listPools: the live state of pools, computed from the cluster; changes nothing. */

import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import {
	groupMembers,
	type MemberView,
	memberView,
	type PoolObjects,
	type PoolRuleInputs,
	poolRuleInputs,
} from '../pool/member-state.js';
import { memberIndex, POOL_LABEL, poolOfConfigMap, SPEC_KEY, STATUS_KEY } from '../pool/names.js';
import type { ConfigMapObject } from '../pool/objects.js';
import { type PoolSpec, parseSpec } from '../pool/spec.js';
import { countMembers, type PoolCounts, type PoolStatus, readStatus } from '../pool/status.js';
import { checkPoolName, clusterError } from './cluster-error.js';
import { deriveContext, type EngineContext, suggest } from './context.js';
import { notFoundMessage, readDefinitionMap } from './definition.js';
import { probeForeign } from './foreign-objects.js';
import { listPoolRefs } from './list-definitions.js';
import { type ListedObjects, listPoolObjects, poolSelector } from './pool-objects.js';

/** A pool as it is now: its definition (or why it is unreadable), members and counts. */
export interface PoolSnapshot {
	pool: string;
	/** The definition; null when it does not parse or validate (see specError). */
	spec: PoolSpec | null;
	specError: string | null;
	members: MemberView[];
	counts: PoolCounts;
	/** The status the last reconcile recorded (null when none or unreadable). */
	recorded: PoolStatus | null;
	/** Why the recorded status is unreadable (`status: errors is not a list`), or null. */
	statusProblem?: string | null;
	/**
	 * The pool's objects under a member's name that do not read (pool/object-shape.ts): each
	 * member (left alone: see ListedObjects) and what is wrong.
	 */
	unreadable?: Array<{ member: string; problem: string }>;
}

/** The snapshot of one pool from its ConfigMap and its objects (pure). */
export function snapshotOf(
	pool: string,
	configMap: ConfigMapObject,
	objects: ListedObjects & Pick<PoolObjects, 'foreign' | 'corralPods'>,
	now: number,
	where?: Pick<EngineContext, 'namespace' | 'commandScope'>,
): PoolSnapshot {
	let spec: PoolSpec | null = null;
	let specError: string | null = null;
	try {
		spec = parseSpec(configMap.data?.[SPEC_KEY], pool, {
			allowPersistent: true,
			...(where ? { command: (words: string) => suggest(where, words) } : {}),
		});
	} catch (err) {
		specError = (err as Error).message;
	}
	const { status: recorded, problem: statusProblem } = readStatus(configMap.data?.[STATUS_KEY]);
	const size = spec?.size ?? recorded?.desired ?? 0;
	const poolInputs: PoolRuleInputs = poolRuleInputs(size, spec);
	// of every pool's listed objects (listPools), this pool's
	const unreadable = (objects.unreadable ?? []).filter((u) => memberIndex(pool, u.member) !== null);
	const members = groupMembers(pool, size, objects).map((m) => memberView(m, poolInputs, now));
	return {
		pool,
		spec,
		specError,
		members,
		counts: countMembers(size, members),
		recorded,
		statusProblem,
		...(unreadable.length > 0 ? { unreadable } : {}),
	};
}

/** The live state of one pool. Throws PoolError('not-found') when it has no definition. */
export async function readPool(ctx: EngineContext, pool: string): Promise<PoolSnapshot> {
	checkPoolName(pool);
	const [configMap, objects] = await Promise.all([
		readDefinitionMap(ctx, pool),
		listPoolObjects(ctx, pool),
	]);
	if (!configMap) throw new PoolError('not-found', notFoundMessage(ctx, pool));
	const first = snapshotOf(pool, configMap, objects, ctx.now(), ctx);
	// Pods and PVCs under a member's name without the pool's labels are not in the list: look
	// for them by name where a member lacks its own (usually few members).
	const size = first.spec?.size ?? first.recorded?.desired ?? 0;
	const probed = await probeForeign(ctx, pool, groupMembers(pool, size, objects));
	if (probed.foreign.length === 0 && probed.corralPods.length === 0) return first;
	const all = [...(objects.foreign ?? []), ...probed.foreign];
	return snapshotOf(
		pool,
		configMap,
		{ ...objects, foreign: all, corralPods: probed.corralPods },
		ctx.now(),
		ctx,
	);
}

/** The live state of every pool in the namespace (four list requests in all), by name. */
export async function listPools(ctx: EngineContext): Promise<PoolSnapshot[]> {
	const namespace = ctx.namespace;
	const [maps, objects] = await Promise.all([
		ctx.kube.core
			.listNamespacedConfigMap({ namespace, labelSelector: poolSelector() })
			.catch((err) => {
				throw clusterError(err, { verb: 'list', resource: 'configmaps', namespace });
			}),
		listPoolObjects(ctx),
	]);
	const now = ctx.now();
	const out: PoolSnapshot[] = [];
	for (const item of maps.items) {
		const configMap = plainObject<ConfigMapObject>(item);
		const name = configMap.metadata.name ?? '';
		const pool = configMap.metadata.labels?.[POOL_LABEL] ?? '';
		if (poolOfConfigMap(name) !== pool) continue;
		out.push(snapshotOf(pool, configMap, objects, now, ctx));
	}
	return out.sort((a, b) => a.pool.localeCompare(b.pool));
}

/** A pool's snapshot and its namespace. */
export interface PlacedSnapshot {
	namespace: string;
	snapshot: PoolSnapshot;
}

/**
 * The live state of every pool of the context's namespace, or of every namespace the
 * identity can list (allNamespaces): the pools are found by their definitions across the
 * cluster, then each namespace that has one is read with four list requests. Sorted by
 * namespace, then pool.
 */
export async function listPoolsAcross(
	ctx: EngineContext,
	allNamespaces: boolean,
): Promise<PlacedSnapshot[]> {
	const namespaces = allNamespaces
		? [...new Set((await listPoolRefs(ctx.kube, null)).map((r) => r.namespace))].sort()
		: [ctx.namespace];
	const out: PlacedSnapshot[] = [];
	for (const namespace of namespaces)
		for (const snapshot of await listPools(deriveContext(ctx, { namespace })))
			out.push({ namespace, snapshot });
	return out;
}
