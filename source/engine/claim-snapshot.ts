/**
 * One read of a pool shared by the concurrent claims of one engine (a broker claims for many
 * users at once through one engine: one cluster connection and clock): the definition, the members and
 * their views, and the members those claims are trying or have won since. A stale read is safe: creating the member's Lease is
 * the atomic step of a claim, and a claim that finds nothing free in a read it did not start
 * reads again.
 */

import {
	groupMembers,
	type MemberObjects,
	type MemberView,
	memberView,
	type PoolRuleInputs,
	poolRuleInputs,
} from '../pool/member-state.js';
import type { LeaseObject } from '../pool/objects.js';
import type { MemberObjectKind } from '../pool/ownership.js';
import type { PoolSpec } from '../pool/spec.js';
import { claimCacheKey } from './claim-cache.js';
import type { EngineContext } from './context.js';
import { definitionOf, readDefinition } from './definition.js';
import { type ListedObjects, listPoolObjects, readListedObjects } from './pool-objects.js';

/** How long a finished read is handed to claims that start after it (ms). */
export const CLAIM_SNAPSHOT_REUSE_MS = 250;

const STATE_RANK: Record<string, number> = { Ready: 0, Starting: 1, Stopped: 2 };

/**
 * The claim order of a member: Ready, then Starting, then Stopped; within a state, members on
 * the current source before those waiting for their wave of a rollout with the old image.
 */
export function stateRank(view: MemberView): number {
	return (STATE_RANK[view.state] ?? 9) * 2 + (view.waitsForWave ? 1 : 0);
}

let ticks = 0;

/**
 * The next tick of the process's claim clock, which orders the start of a claim, the start of
 * a read and the end of a Lease create without the ties of Date.now()'s milliseconds: a read
 * whose tick is above a create's saw that Lease (the API's reads are linearizable).
 */
export function claimTick(): number {
	return ++ticks;
}

/** A pool as read for claims, with what the claims of this context did since. */
export interface ClaimSnapshot {
	/** The claim clock when the read started (claimTick). */
	readTick: number;
	/** Made from the engine's watch-fed cache (claim-cache.ts), not read from the API. */
	cached: boolean;
	spec: PoolSpec;
	poolInputs: PoolRuleInputs;
	objects: ListedObjects;
	members: MemberObjects[];
	views: MemberView[];
	/**
	 * The free members in the contract's order: Ready, Starting, Stopped (the current source
	 * before an old one waiting for its wave); lowest index first.
	 */
	candidates: MemberView[];
	/** Members a claim of this process is trying, has won, or lost to someone else since the read. */
	taken: Set<string>;
	/**
	 * Identities that won a member since this read started, through it or through another read
	 * (markWon): the read may not show that member as theirs, so their next claim reads again.
	 */
	winners: Set<string>;
	/** Members a claim found a stranger's object under (by name), with its kinds. */
	strangers: Map<string, MemberObjectKind[]>;
	/** A list of the Leases under way, shared by the claims that lost races. */
	leaseRefresh?: Promise<void>;
	/**
	 * A list of the Leases of the identities that just won (by their holder label), to be
	 * sent after those wins: shared by the claims that win in one turn of the event loop.
	 */
	afterWin?: { sent: boolean; identities: Set<string>; leases: Promise<LeaseObject[]> };
}

/** One shared read of a pool, under way or done. */
export interface ClaimRead {
	snapshot: Promise<ClaimSnapshot>;
	/** The snapshot's winners (known before the read ends: markWon adds to it at once). */
	winners: Set<string>;
	/** When the read finished (Date.now()); undefined while it is under way. */
	doneAt?: number;
}

/** An engine's shared reads of pools for claims, by namespace and pool (see EngineCaches). */
export type ClaimReads = Map<string, ClaimRead>;

function readKey(ctx: EngineContext, pool: string): string {
	return `${ctx.namespace}/${pool}`;
}

/** What a snapshot is made of: the definition and the pool's objects. */
interface PoolRead {
	spec: PoolSpec;
	objects: ListedObjects;
	/** Read from the engine's watch-fed cache (claim-cache.ts), not from the API. */
	cached: boolean;
}

/** The pool as the engine's watch-fed cache has it, or null when it has none synced. */
function fromCache(ctx: EngineContext, pool: string): PoolRead | null {
	const cache = ctx.caches.claimCaches.get(claimCacheKey(ctx, pool));
	if (!cache?.synced()) return null;
	const configMap = cache.configMap();
	if (configMap === 'unreadable') return null;
	const { spec } = definitionOf(ctx, pool, configMap);
	return { spec, objects: readListedObjects(cache.raw(), pool), cached: true };
}

/** The pool read from the API: the definition and one list of each kind, all at once. */
async function fromApi(ctx: EngineContext, pool: string): Promise<PoolRead> {
	// Both at once; the definition's failure (no such pool) is the one reported first.
	const [definition, listed] = await Promise.allSettled([
		readDefinition(ctx, pool),
		listPoolObjects(ctx, pool),
	]);
	if (definition.status === 'rejected') throw definition.reason;
	if (listed.status === 'rejected') throw listed.reason;
	return { spec: definition.value.spec, objects: listed.value, cached: false };
}

async function readSnapshot(
	ctx: EngineContext,
	pool: string,
	read: SnapshotRead,
	winners: Set<string>,
): Promise<ClaimSnapshot> {
	const readTick = claimTick();
	// A read again after nothing was free, or after a member was given back, asks the API: the
	// cache may lag behind others' writes. (The engine's own new Leases it shows at once.)
	const { spec, objects, cached } =
		(read === 'api' ? null : fromCache(ctx, pool)) ?? (await fromApi(ctx, pool));
	const poolInputs: PoolRuleInputs = poolRuleInputs(spec.size, spec);
	const now = ctx.now();
	const members = groupMembers(pool, spec.size, objects);
	const views = members.map((m) => memberView(m, poolInputs, now));
	const candidates = views
		.filter((v) => v.free)
		.sort((a, b) => stateRank(a) - stateRank(b) || a.index - b.index);
	return {
		readTick,
		cached,
		spec,
		poolInputs,
		objects,
		members,
		views,
		candidates,
		taken: new Set(),
		winners,
		strangers: new Map(),
	};
}

/**
 * Which read a claim asks for: 'shared', the engine's read under way or finished less than
 * CLAIM_SNAPSHOT_REUSE_MS ago, else a new one; 'new', a new one (from the watch-fed cache
 * when it is synced, which shows the engine's own new Leases at once: noteWritten); 'api', a
 * new one from the API.
 */
export type SnapshotRead = 'shared' | 'new' | 'api';

/**
 * The pool as read for a claim: the engine's shared read, or a new one (see SnapshotRead); a
 * new one becomes the shared read.
 */
export function claimSnapshot(
	ctx: EngineContext,
	pool: string,
	read: SnapshotRead = 'shared',
): Promise<ClaimSnapshot> {
	const byPool = ctx.caches.claimReads;
	const key = readKey(ctx, pool);
	const known = byPool.get(key);
	if (
		known &&
		read === 'shared' &&
		(known.doneAt === undefined || Date.now() - known.doneAt < CLAIM_SNAPSHOT_REUSE_MS)
	)
		return known.snapshot;
	const winners = new Set<string>();
	const entry: ClaimRead = { snapshot: readSnapshot(ctx, pool, read, winners), winners };
	byPool.set(key, entry);
	entry.snapshot.then(
		() => {
			entry.doneAt = Date.now();
		},
		() => {
			// A failed read is not handed on: the next claim reads again.
			if (byPool.get(key) === entry) byPool.delete(key);
		},
	);
	return entry.snapshot;
}

/**
 * Says that an identity won a member of a pool (its Lease created): the read it won through
 * and the engine's shared read of the pool now, which the next claim of the identity would
 * start from, both began before that Lease and may not show it, so that claim reads again;
 * the pool's watch-fed cache, if any, shows the Lease from now on (its watch may lag).
 *
 * Marking only the read the claim won through was the race that reverted this path once
 * (7b289dc): another claim's read again (nothing free in an older read) had become the shared
 * read while the Lease was being created; the identity's next claim started from it, did not
 * find its member, won a second one and gave it back (its check for an earlier claim), and a
 * claim of another identity that lost that member's Lease create to it meanwhile answered "no
 * free members" while one became free a moment later.
 */
export function markWon(
	ctx: EngineContext,
	pool: string,
	snapshot: ClaimSnapshot,
	identity: string,
	lease: LeaseObject,
): void {
	snapshot.winners.add(identity);
	ctx.caches.claimReads.get(readKey(ctx, pool))?.winners.add(identity);
	// The watch-fed cache shows the Lease at once, before its watch delivers it.
	ctx.caches.claimCaches.get(claimCacheKey(ctx, pool))?.noteWritten(lease);
}

/**
 * Runs an operation that changes a pool (its members, Leases or definition): when it ends,
 * done or failed, the engine's shared claim read of that pool is dropped, so that the next
 * claim reads what the operation did. The one way the engine's writes invalidate that read.
 */
export async function changingPool<T>(
	ctx: EngineContext,
	pool: string,
	operation: () => Promise<T>,
): Promise<T> {
	try {
		return await operation();
	} finally {
		ctx.caches.claimReads.delete(readKey(ctx, pool));
	}
}
