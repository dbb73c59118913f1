/** Opening the selected hit of the pools screen's find: its pool, and the member's details. */

import { selectedHit } from '../model/find-hits.js';
import type { KeyContext } from './command.js';

/** Opens the selected hit of the find; false when there is none. */
export function openHit(ctx: KeyContext): boolean {
	const s = ctx.store.getState();
	const hit = selectedHit(s);
	if (!hit) return false;
	s.openPool(hit.key);
	if (!hit.member) return true;
	const after = ctx.store.getState();
	after.selectMember(hit.member);
	after.setScreen('details');
	ctx.ops.loadEvents(hit.member);
	return true;
}
