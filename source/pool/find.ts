/**
 * Finding members across pools (`ctpool find`, `/` on the console's pools screen): a
 * case-insensitive substring of a pool name, a member name or a holder. A pool whose name
 * matches gives all its members (or one line for the pool itself when it has none).
 */

import { sanitize } from '../text/sanitize.js';
import { type MemberState, type MemberView, shownHolder } from './member-state.js';

/** What a hit matched. */
export type FindField = 'pool' | 'member' | 'holder';

/** One pool to search. */
export interface FindPool {
	/** How the caller names the pool (the console's pool key, the CLI's namespace/pool). */
	key: string;
	namespace: string;
	pool: string;
	members: readonly (Pick<MemberView, 'name' | 'state' | 'holder' | 'claimedAt'> &
		Partial<Pick<MemberView, 'corralHolder'>>)[];
}

/** One member found (member '' for a pool without members whose name matched). */
export interface FindHit {
	key: string;
	namespace: string;
	pool: string;
	member: string;
	/** The member's state ('' for a pool without members). */
	state: MemberState | '';
	holder: string;
	/** When the claim was taken (ms), null when unclaimed or unknown. */
	claimedAt: number | null;
	/** What matched, in the order pool, member, holder. */
	matched: FindField[];
}

/** The query as matched: trimmed and lower-cased; '' finds nothing. */
export function findQuery(text: string): string {
	return text.trim().toLowerCase();
}

function has(value: string, query: string): boolean {
	return value !== '' && sanitize(value).toLowerCase().includes(query);
}

/** The hits of a query over pools, in the pools' order and then the members' order. */
export function findMembers(text: string, pools: Iterable<FindPool>): FindHit[] {
	const query = findQuery(text);
	if (!query) return [];
	const hits: FindHit[] = [];
	for (const p of pools) {
		const poolHit = has(p.pool, query);
		const where = { key: p.key, namespace: p.namespace, pool: p.pool };
		if (poolHit && p.members.length === 0) {
			hits.push({
				...where,
				member: '',
				state: '',
				holder: '',
				claimedAt: null,
				matched: ['pool'],
			});
			continue;
		}
		for (const m of p.members) {
			const matched: FindField[] = [];
			if (poolHit) matched.push('pool');
			if (has(m.name, query)) matched.push('member');
			// an older Corral claim's holder counts too, shown as Corral's
			const holder = shownHolder({ holder: m.holder, corralHolder: m.corralHolder ?? '' });
			if (has(m.holder || (m.corralHolder ?? ''), query)) matched.push('holder');
			if (matched.length === 0) continue;
			hits.push({
				...where,
				member: m.name,
				state: m.state,
				holder,
				claimedAt: m.holder ? m.claimedAt : null,
				matched,
			});
		}
	}
	return hits;
}
