/** The hits of the pools screen's find, derived from the store's pools (memoised on them). */

import { type FindHit, type FindPool, findMembers } from '../../pool/find.js';
import type { ConsoleState } from '../store/store.js';
import { splitPoolKey } from './pool-index.js';

const NO_HITS: readonly FindHit[] = [];

/** The last hits for each pools object (replaced on every change): one answer per store's pools, never shared. */
const memo = new WeakMap<
	ConsoleState['pools'],
	{ names: ConsoleState['poolNames']; find: string; hits: readonly FindHit[] }
>();

/** The pools the find searches, in the pools screen's order. */
function* searched(
	state: Pick<ConsoleState, 'pools' | 'poolNames' | 'session'>,
): Iterable<FindPool> {
	for (const key of state.poolNames) {
		const p = state.pools[key];
		if (!p) continue;
		yield {
			key,
			namespace: splitPoolKey(key).namespace ?? state.session.namespace,
			pool: p.pool,
			members: p.rows,
		};
	}
}

/** The hits of the find now (the same array while pools and find are unchanged). */
export function findHits(
	state: Pick<ConsoleState, 'pools' | 'poolNames' | 'session' | 'find'>,
): readonly FindHit[] {
	if (!state.find.trim()) return NO_HITS;
	const last = memo.get(state.pools);
	if (last && last.names === state.poolNames && last.find === state.find) return last.hits;
	const hits = findMembers(state.find, searched(state));
	memo.set(state.pools, { names: state.poolNames, find: state.find, hits });
	return hits;
}

/** The selected hit, or null. */
export function selectedHit(
	state: Pick<ConsoleState, 'pools' | 'poolNames' | 'session' | 'find' | 'findSelected'>,
): FindHit | null {
	const hits = findHits(state);
	if (hits.length === 0) return null;
	return hits[Math.max(0, Math.min(state.findSelected, hits.length - 1))] ?? null;
}
