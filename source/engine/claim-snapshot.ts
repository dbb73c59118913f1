/**
 * One read of a pool shared by the concurrent claims of one engine context (a broker claims
 * for many users at once): the definition, the members and their views, and the members this
 * context is claiming or has won since. A stale read is safe: creating the member's Lease is
 * the atomic step of a claim, and a claim that finds nothing free in a read it did not start
 * reads again.
 */

import {
	groupMembers,
	type MemberObjects,
	type MemberView,
	memberView,
	type PoolFacts,
} from '../pool/member-state.js';
import { sourceHash } from '../pool/source-hash.js';
import { type PoolSpec, sourceFields } from '../pool/spec.js';
import type { EngineContext } from './context.js';
import { readDefinition } from './definition.js';
import { type ListedObjects, listPoolObjects } from './pool-objects.js';

/** How long a finished read is handed to claims that start after it (ms). */
export const CLAIM_SNAPSHOT_REUSE_MS = 250;

const STATE_RANK: Record<string, number> = { Ready: 0, Starting: 1, Stopped: 2 };

/** The claim order of a member's state: Ready, then Starting, then Stopped. */
export function stateRank(view: MemberView): number {
	return STATE_RANK[view.state] ?? 9;
}

/** A pool as read for claims, with what the claims of this context did since. */
export interface ClaimSnapshot {
	/** When the read started (Date.now()). */
	readAt: number;
	spec: PoolSpec;
	facts: PoolFacts;
	objects: ListedObjects;
	members: MemberObjects[];
	views: MemberView[];
	/** The free members in the contract's order: Ready, Starting, Stopped; lowest index first. */
	candidates: MemberView[];
	/** Members a claim of this context is trying, has won, or lost to someone else since the read. */
	taken: Set<string>;
	/** Identities that won a member through this read (their next claim reads again). */
	winners: Set<string>;
	/** A list of the Leases under way, shared by the claims that lost races. */
	leaseRefresh?: Promise<void>;
}

interface Entry {
	snapshot: Promise<ClaimSnapshot>;
	/** When the read finished (Date.now()); undefined while it is under way. */
	doneAt?: number;
}

const snapshots = new WeakMap<EngineContext, Map<string, Entry>>();

async function readSnapshot(ctx: EngineContext, pool: string): Promise<ClaimSnapshot> {
	const readAt = Date.now();
	// Both at once; the definition's failure (no such pool) is the one reported first.
	const [definition, listed] = await Promise.allSettled([
		readDefinition(ctx, pool),
		listPoolObjects(ctx, pool),
	]);
	if (definition.status === 'rejected') throw definition.reason;
	if (listed.status === 'rejected') throw listed.reason;
	const { spec } = definition.value;
	const objects = listed.value;
	const facts: PoolFacts = { size: spec.size, sourceHash: sourceHash(sourceFields(spec)) };
	const now = ctx.now();
	const members = groupMembers(pool, spec.size, objects);
	const views = members.map((m) => memberView(m, facts, now));
	const candidates = views
		.filter((v) => v.free)
		.sort((a, b) => stateRank(a) - stateRank(b) || a.index - b.index);
	return {
		readAt,
		spec,
		facts,
		objects,
		members,
		views,
		candidates,
		taken: new Set(),
		winners: new Set(),
	};
}

/**
 * The pool as read for a claim: the read under way or finished less than
 * CLAIM_SNAPSHOT_REUSE_MS ago in this context, else a new one (always a new one when fresh).
 */
export function claimSnapshot(
	ctx: EngineContext,
	pool: string,
	fresh = false,
): Promise<ClaimSnapshot> {
	let byPool = snapshots.get(ctx);
	if (!byPool) {
		byPool = new Map();
		snapshots.set(ctx, byPool);
	}
	const known = byPool.get(pool);
	if (
		known &&
		!fresh &&
		(known.doneAt === undefined || Date.now() - known.doneAt < CLAIM_SNAPSHOT_REUSE_MS)
	)
		return known.snapshot;
	const entry: Entry = { snapshot: readSnapshot(ctx, pool) };
	byPool.set(pool, entry);
	entry.snapshot.then(
		() => {
			entry.doneAt = Date.now();
		},
		() => {
			// A failed read is not handed on: the next claim reads again.
			if (byPool.get(pool) === entry) byPool.delete(pool);
		},
	);
	return entry.snapshot;
}

/** Drops the shared read of a pool: an operation of this context changed the pool. */
export function forgetClaimSnapshot(ctx: EngineContext, pool: string): void {
	snapshots.get(ctx)?.delete(pool);
}
