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
	rederiveMembers,
} from '../model/pool-derivation.js';
import { recordHistory } from '../model/pool-history.js';
import type { StoreContext } from './context.js';
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
	for (const [key, members] of dirty) {
		const prev = pools[key];
		const { index: objects, pool } = index.resolve(key);
		if (!prev || members === 'all') {
			pools[key] = derivePool(objects, pool, state.now);
			if (!prev) poolSetChanged = true;
		} else pools[key] = rederiveMembers(objects, prev, members, state.now);
	}
	let poolNames = state.poolNames;
	if (poolSetChanged || changes.some((c) => c.kind === 'configmaps' || c.op !== 'upsert')) {
		const names = index.poolKeys();
		for (const name of Object.keys(pools)) if (!names.includes(name)) delete pools[name];
		if (names.join('\n') !== poolNames.join('\n')) poolNames = names;
	}
	const history = recordHistory(
		state.history,
		pools,
		state.now,
		listedKinds(state).counts,
		dirty.keys(),
	);
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

function setConnection(
	{ set, get }: StoreContext,
	overall: ConnectionState,
	byKind?: Partial<Record<WatchKind, ConnectionState>>,
) {
	const state = get();
	const listed = state.listed;
	const now = WATCH_KINDS.filter(
		(k) => !listed[k] && (overall.phase === 'synced' || byKind?.[k]?.phase === 'synced'),
	);
	const nextListed =
		now.length > 0 ? { ...listed, ...Object.fromEntries(now.map((k) => [k, true])) } : listed;
	// the first sight of every pool is when its counts become known, not its next change
	const history =
		!listedKinds(state).counts && listedKinds({ listed: nextListed }).counts
			? recordHistory(state.history, state.pools, state.now, true)
			: state.history;
	set({
		connection: overall,
		...(byKind ? { connectionByKind: byKind } : {}),
		...(now.length > 0 ? { listed: nextListed } : {}),
		...(history !== state.history ? { history } : {}),
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
