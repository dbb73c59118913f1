/** o and O: sorting the pools or members table, and saying how it is sorted. */

import { columnTitle } from '../model/member-columns.js';
import { poolColumnTitle } from '../model/pool-columns.js';
import {
	MEMBER_SORT_COLUMNS,
	nextSortColumn,
	POOL_SORT_COLUMNS,
	sortLabel,
} from '../model/sorting.js';
import type { Screen } from '../store/store.js';
import type { KeyContext } from './command.js';

/** Sorts by the next column, or reverses the order; the status line says the sort. */
export function sortStep(ctx: KeyContext, reverse: boolean): void {
	const s = ctx.store.getState();
	const onPools = s.screen === 'pools';
	if (reverse) s.setSort({ reverse: !(onPools ? s.poolSort : s.memberSort).reverse });
	else if (onPools) s.setSort({ column: nextSortColumn(POOL_SORT_COLUMNS, s.poolSort.column) });
	else s.setSort({ column: nextSortColumn(MEMBER_SORT_COLUMNS, s.memberSort.column) });
	const after = ctx.store.getState();
	s.setStatus(
		onPools
			? sortLabel(poolColumnTitle(after.poolSort.column), after.poolSort)
			: sortLabel(columnTitle(after.memberSort.column), after.memberSort),
	);
}

/** Why sorting cannot run on screen, or null. */
export function sortAvailable(screen: Screen): string | null {
	return screen === 'pools' || screen === 'members'
		? null
		: 'sorting works on the pools and members screens';
}
