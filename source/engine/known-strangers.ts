/**
 * Strangers a reconcile ran into: objects under a member's name that are not the pool's,
 * found by a step (the pool's label-selected lists never show them). An engine remembers them,
 * and its next reconcile of the pool looks for each again by name before it plans: a member
 * still blocked is left alone (no Lease taken and deleted, no PVC made and deleted, no Event,
 * every pass), and a member whose stranger has gone is worked on again. One GET per stranger
 * and pass; nothing for a pool without strangers.
 */

import { isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { pvcName } from '../pool/names.js';
import { isPoolObject, type MemberObjectKind, type OwnedCandidate } from '../pool/ownership.js';
import { mapLimit } from './bounded-map.js';
import type { EngineContext } from './context.js';
import { readService } from './foreign-objects.js';

/** A stranger under a member's name. */
export interface Stranger {
	kind: MemberObjectKind;
	member: string;
}

/** The strangers an engine knows of, by namespace and pool. */
export type KnownStrangers = Map<string, Stranger[]>;

/** The most pools whose strangers an engine keeps; the oldest are dropped (and found again). */
const POOLS_MAX = 1000;

/** The most strangers kept for one pool (a pool has at most 1,000 members of four kinds). */
const PER_POOL_MAX = 4000;

function keyOf(ctx: EngineContext, pool: string): string {
	return JSON.stringify([ctx.namespace, pool]);
}

/** Remembers the strangers the steps of a reconcile ran into (beside those still known). */
export function rememberStrangers(
	ctx: EngineContext,
	pool: string,
	known: readonly Stranger[],
	found: readonly Stranger[],
): void {
	const all = new Map<string, Stranger>();
	for (const s of [...known, ...found]) all.set(`${s.kind}/${s.member}`, s);
	const key = keyOf(ctx, pool);
	const byPool = ctx.caches.strangers;
	byPool.delete(key);
	if (all.size === 0) return;
	byPool.set(key, [...all.values()].slice(0, PER_POOL_MAX));
	if (byPool.size > POOLS_MAX) byPool.delete(byPool.keys().next().value as string);
}

/** The object of that kind under the member's name as read now (null: none, or not readable). */
async function readByName(
	ctx: EngineContext,
	{ kind, member }: Stranger,
): Promise<OwnedCandidate | null> {
	const namespace = ctx.namespace;
	try {
		if (kind === 'Service') {
			const service = await readService(ctx, member);
			return service === 'unreadable' ? null : service;
		}
		if (kind === 'pod')
			return plainObject(await ctx.kube.core.readNamespacedPod({ name: member, namespace }));
		if (kind === 'PVC')
			return plainObject(
				await ctx.kube.core.readNamespacedPersistentVolumeClaim({
					name: pvcName(member),
					namespace,
				}),
			);
		return null; // a Lease: the pool's list of Leases shows it, named or not
	} catch (err) {
		if (isNotFound(err)) return null;
		// not readable now: still left alone this pass, and looked for again on the next
		return { metadata: { labels: {} } };
	}
}

/**
 * The strangers this engine knows of in the pool that are still there (each looked for by
 * name); those gone are forgotten.
 */
export async function recheckStrangers(ctx: EngineContext, pool: string): Promise<Stranger[]> {
	const known = ctx.caches.strangers.get(keyOf(ctx, pool));
	if (!known) return [];
	const still = await mapLimit(known, ctx.concurrency, async (s) => {
		const o = await readByName(ctx, s);
		return o && !isPoolObject(pool, s.member, s.kind, o) ? s : null;
	});
	const left = still.filter((s): s is Stranger => s !== null);
	rememberStrangers(ctx, pool, left, []);
	return left;
}
