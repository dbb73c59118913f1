/**
 * The expired claims the pools screen shows: every member of every shown pool whose claim
 * expired, or, while a find is active, those among its hits. `*` there asks once, listing
 * each (namespace/pool, member, holder), and releases them all (engine/release-expired.ts).
 */

import { type ExpiredClaim, hasExpiredClaim } from '../../engine/release-expired.js';
import type { ConsoleState } from '../store/store.js';
import { findHits } from './find-hits.js';
import { splitPoolKey } from './pool-index.js';

type Shown = Pick<ConsoleState, 'pools' | 'poolNames' | 'session' | 'find'>;

/** The expired claims of the shown pools (or of the find's hits), in the screen's order. */
export function shownExpiredClaims(state: Shown): ExpiredClaim[] {
	const claim = (key: string, member: string): ExpiredClaim[] => {
		const p = state.pools[key];
		const row = p?.rows.find((r) => r.name === member);
		if (!p || !row || !hasExpiredClaim(row)) return [];
		return [
			{
				namespace: splitPoolKey(key).namespace ?? state.session.namespace,
				pool: p.pool,
				member: row.name,
				holder: row.holder,
				expiredAt: row.leaseExpiresAt,
			},
		];
	};
	if (state.find.trim())
		return findHits(state).flatMap((h) => (h.member ? claim(h.key, h.member) : []));
	return state.poolNames.flatMap((key) => {
		const rows = [...(state.pools[key]?.rows ?? [])].sort((a, b) => a.index - b.index);
		return rows.flatMap((r) => claim(key, r.name));
	});
}

/** Where an expired claim is, as the confirmation lists it: `namespace/pool`. */
export function claimPlace(c: ExpiredClaim): string {
	return `${c.namespace}/${c.pool}`;
}
