/**
 * *: on the members screen, mark every expired claim the filter lets through; on the pools
 * screen, release every expired claim shown (after one confirmation).
 */

import { shownExpiredClaims } from '../model/expired-claims.js';
import { visibleRows } from '../store/store.js';
import { busyBlock, type ConsoleApi, defineCommand, staticBlockOf } from './command.js';
import { release } from './release.js';

/** `*` on the pools screen: one confirmation of every expired claim shown, or why there is none. */
function confirmExpired(s: ConsoleApi): void {
	const claims = shownExpiredClaims(s);
	// a pool whose members wait for the first lists (membersPending) shows none yet: say so
	const waiting = s.poolNames.some((key) => s.pools[key]?.membersPending);
	if (claims.length > 0) s.setPrompt({ kind: 'expired', claims, scroll: 0 });
	else if (waiting) s.setStatus('the members are still being listed: * again once the counts show');
	else if (s.find.trim()) s.setStatus('no member the find shows has an expired claim');
	else s.setStatus('no member of the shown pools has an expired claim');
}

declare module './command.js' {
	interface CommandIds {
		MarkExpired: 'mark-expired';
	}
}

export const markExpired = defineCommand({
	name: 'MarkExpired',
	id: 'mark-expired',
	match: [{ char: '*' }],
	keys: '*',
	hint: 'mark expired',
	description:
		'members: mark every expired claim (the filter lets through) · pools, find: release every expired claim shown (one confirmation)',
	group: 'Find, sort, mark',
	order: 150,
	screens: ['pools', 'members'],
	bar: [],
	mutating: false,
	available(state, screen) {
		// on the pools screen * releases (after one confirmation): release's rights apply
		if (screen === 'pools') return staticBlockOf(state, release) ?? busyBlock(state);
		return screen === 'members' ? null : 'marks are made on the members screen';
	},
	run(ctx) {
		const s = ctx.store.getState();
		if (s.screen === 'pools') return confirmExpired(s);
		const expired = visibleRows(s).filter((r) => r.claimExpired && !r.reconciling);
		s.setMarks(
			expired.map((r) => r.name),
			true,
		);
		const n = expired.length;
		s.setStatus(
			n > 0
				? `marked ${n} member${n > 1 ? 's' : ''} whose claim expired (x force-releases every mark)`
				: s.filter
					? 'no member the filter shows has an expired claim'
					: 'no member has an expired claim',
		);
	},
});
