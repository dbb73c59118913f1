/** [ and ] in details: the previous or next member, in the members screen order. */

import { selectedRow } from '../store/store.js';
import type { KeyContext } from './command.js';

/** Moves the details to the member delta rows away, and loads its events. */
export function stepMember(ctx: KeyContext, delta: number): void {
	const s = ctx.store.getState();
	const row = selectedRow(s);
	s.move(delta);
	const next = selectedRow(ctx.store.getState());
	s.setScroll(0);
	if (next && next.name !== row?.name) ctx.ops.loadEvents(next.name);
}

/** Why [ and ] cannot run on screen, or null. */
export function stepAvailable(screen: string): string | null {
	return screen === 'details' ? null : 'moves between members in the details view';
}
