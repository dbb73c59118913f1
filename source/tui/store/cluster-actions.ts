/**
 * The cluster index's actions: the watch's batches and connection, the clock, and the
 * objects of a member. A batch derives only the members it touched.
 */

import {
	type ConnectionState,
	WATCH_KINDS,
	type WatchChange,
	type WatchKind,
} from '../../kube/pool-watch.js';
import { readBatch } from '../../kube/watch-boundary.js';
import type { ObjectIndex } from '../model/object-index.js';
import { problemLine } from '../model/object-problems.js';
import {
	derivePool,
	newlyExpired,
	type PoolDerivation,
	pendingPool,
	rederiveMembers,
} from '../model/pool-derivation.js';
import { recordHistory } from '../model/pool-history.js';
import type { PoolIndex } from '../model/pool-index.js';
import type { StoreContext, StoreState } from './context.js';
import { listedKinds } from './selectors.js';
import { STATUS_TTL_MS } from './session-state.js';

/** The cluster index's actions. */
export interface ClusterActions {
	/** Applies one watch batch in one update; derives only the members it touched. */
	applyBatch(changes: readonly WatchChange[]): void;
	/** Records a refusal of the credentials (401/403), or clears it (null). */
	setAuthProblem(problem: string | null): void;
	/** Records the watch connection state. */
	setConnection(
		overall: ConnectionState,
		byKind?: Partial<Record<WatchKind, ConnectionState>>,
	): void;
	/** Advances the clock (ages, expiry, elapsed time). */
	tick(now: number): void;
	/** The objects of a member of the open pool, for the details screen. */
	memberObjects(member: string): ReturnType<ObjectIndex['memberObjects']>;
}

/** The cluster index's actions over a store. */
export function clusterActions(ctx: StoreContext): ClusterActions {
	const { set, get, index } = ctx;
	return {
		applyBatch: (batch) => applyBatch(ctx, batch),
		setAuthProblem(problem) {
			if (get().authProblem !== problem) set({ authProblem: problem });
		},
		setConnection: (overall, byKind) => setConnection(ctx, overall, byKind),
		tick: (now) => tick(ctx, now),
		memberObjects(member) {
			const key = get().pool;
			return (key ? index.resolve(key).index : index.resolve('').index).memberObjects(member);
		},
	};
}

function applyBatch(
	{ set, get, index, objectProblems }: StoreContext,
	batch: readonly WatchChange[],
) {
	if (batch.length === 0) return;
	// the boundary: an object that does not read is left out and named, the rest goes on
	const { changes, problems } = readBatch(batch);
	const fresh = objectProblems.apply(changes, problems);
	for (const p of fresh)
		get().logEvent({
			time: get().now,
			actor: 'ctpool',
			pool: p.pool,
			action: 'watch',
			outcome: 'error',
			message: problemLine(p),
		});
	const dirty = index.apply(changes);
	const state = get();
	const pools: Record<string, PoolDerivation> = { ...state.pools };
	let poolSetChanged = false;
	const listing = listsComing(state, index);
	for (const [key, members] of dirty) {
		const prev = pools[key];
		const { index: objects, pool } = index.resolve(key);
		if (listing && key !== state.pool && (!prev || prev.membersPending)) {
			// the counts wait for the last member list: so do the members (derived once, below)
			if (!prev || members === 'all') pools[key] = pendingPool(objects, pool);
			if (!prev) poolSetChanged = true;
		} else if (!prev || members === 'all' || prev.membersPending) {
			pools[key] = derivePool(objects, pool, state.now);
			if (!prev) poolSetChanged = true;
		} else pools[key] = rederiveMembers(objects, prev, members, state.now);
	}
	const keys = new Set(dirty.keys());
	if (!listing) for (const key of settlePending(index, pools, state.now)) keys.add(key);
	let poolNames = state.poolNames;
	if (poolSetChanged || changes.some((c) => c.kind === 'configmaps' || c.op !== 'upsert')) {
		const names = index.poolKeys();
		for (const name of Object.keys(pools)) if (!names.includes(name)) delete pools[name];
		if (names.join('\n') !== poolNames.join('\n')) poolNames = names;
	}
	const history = recordHistory(state.history, pools, state.now, listedKinds(state).counts, keys);
	// marks of members that are gone go with them
	let marks = state.marks;
	if (marks.size > 0 && state.pool) {
		const p = pools[state.pool];
		const kept = [...marks].filter((m) => p?.positions.has(m));
		if (kept.length !== marks.size) marks = new Set(kept);
	}
	const unreadable =
		objectProblems.size > 0 || state.unreadable.length > 0
			? objectProblems.lines()
			: state.unreadable;
	set({ pools, poolNames, history, marks, unreadable, revision: state.revision + 1 });
}

/**
 * Whether the watch's first lists are coming in: a list has been applied, not yet one of
 * every member kind (pods, PVCs, Leases), and none of those fails. Until then the pools'
 * counts are not shown, so the members of a pool not open wait (membersPending) instead of
 * being derived from each list as it comes.
 */
function listsComing(
	state: Pick<StoreState, 'listed' | 'connectionByKind'>,
	index: PoolIndex,
): boolean {
	if (listedKinds(state).counts || failing(state.connectionByKind)) return false;
	const some = WATCH_KINDS.some((k) => index.listed(k));
	const all = MEMBER_KINDS.every((k) => state.listed[k] || index.listed(k));
	return some && !all;
}

const MEMBER_KINDS: readonly WatchKind[] = ['pods', 'persistentvolumeclaims', 'leases'];

/** Whether a member kind's watch fails (its list may never come). */
function failing(byKind: Partial<Record<WatchKind, ConnectionState>> | undefined): boolean {
	return MEMBER_KINDS.some((k) => {
		const phase = byKind?.[k]?.phase;
		return phase === 'reconnecting' || phase === 'failed';
	});
}

/**
 * Derives the members of the pools that wait for them (membersPending), in place; returns
 * their keys. The only = one pool.
 */
export function settlePending(
	index: PoolIndex,
	pools: Record<string, PoolDerivation>,
	now: number,
	only?: string,
): string[] {
	const out: string[] = [];
	for (const [key, p] of Object.entries(pools)) {
		if (!p.membersPending || (only !== undefined && key !== only)) continue;
		const { index: objects, pool } = index.resolve(key);
		pools[key] = derivePool(objects, pool, now);
		out.push(key);
	}
	return out;
}

/**
 * The pools with their waiting members derived (the pool given, or all of them), or null
 * when none waits: for opening a pool, a find, or a member list that is refused.
 */
export function settledPools(
	{ get, index }: Pick<StoreContext, 'get' | 'index'>,
	only?: string,
): Record<string, PoolDerivation> | null {
	const state = get();
	const waiting = Object.entries(state.pools).some(
		([key, p]) => p.membersPending && (only === undefined || key === only),
	);
	if (!waiting) return null;
	const pools = { ...state.pools };
	settlePending(index, pools, state.now, only);
	return pools;
}

function setConnection(
	ctx: StoreContext,
	overall: ConnectionState,
	byKind?: Partial<Record<WatchKind, ConnectionState>>,
) {
	const { set, get } = ctx;
	const state = get();
	const listed = state.listed;
	const now = WATCH_KINDS.filter(
		(k) => !listed[k] && (overall.phase === 'synced' || byKind?.[k]?.phase === 'synced'),
	);
	const nextListed =
		now.length > 0 ? { ...listed, ...Object.fromEntries(now.map((k) => [k, true])) } : listed;
	// the first sight of every pool is when its counts become known, not its next change
	// a member list that fails may never come: the pools waiting for it are derived now
	const settled =
		failing(byKind) || listedKinds({ listed: nextListed }).counts ? settledPools(ctx) : null;
	const pools = settled ?? state.pools;
	const history =
		!listedKinds(state).counts && listedKinds({ listed: nextListed }).counts
			? recordHistory(state.history, pools, state.now, true)
			: state.history;
	set({
		connection: overall,
		...(byKind ? { connectionByKind: byKind } : {}),
		...(now.length > 0 ? { listed: nextListed } : {}),
		...(history !== state.history ? { history } : {}),
		...(settled ? { pools } : {}),
	});
}

function tick({ set, get, index }: StoreContext, now: number) {
	const state = get();
	let pools: Record<string, PoolDerivation> | null = null;
	for (const [name, p] of Object.entries(state.pools)) {
		const expired = newlyExpired(p, now);
		if (expired.length === 0) continue;
		pools ??= { ...state.pools };
		pools[name] = rederiveMembers(index.resolve(name).index, p, expired, now);
	}
	const history = recordHistory(
		state.history,
		pools ?? state.pools,
		now,
		listedKinds(state).counts,
	);
	const status =
		state.status && state.status.level !== 'error' && now - state.status.time >= STATUS_TTL_MS
			? { status: null }
			: {};
	set({
		now,
		...(pools ? { pools } : {}),
		...(history !== state.history ? { history } : {}),
		...status,
	});
}
