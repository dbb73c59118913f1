/**
 * Which members are on screen now, so that the watch hands their changes over at once: a
 * change to a row the user sees is drawn within a frame, while one that only moves a count
 * waits for the next batch (source/tui/session/run.tsx). The members are data in the store
 * (its shownMembers, published by its showMembers action after each render of the members
 * table or the details screen; every other screen shows no member's row); an OnScreen is
 * the watch's copy of them, which the store alone writes, as the watch starts before the
 * store exists.
 */

import type { WatchChange } from '../../kube/pool-watch.js';
import { memberOf } from '../model/object-index.js';

const NONE: ReadonlySet<string> = new Set();

/**
 * Whether a watch change must be drawn at once: a relist, any Lease (claims are what an
 * admin watches, on every screen) or pool definition, or an object of a member on screen.
 */
export function urgentChange(change: WatchChange, shown: ReadonlySet<string>): boolean {
	if (change.op === 'reset' || change.kind === 'leases' || change.kind === 'configmaps')
		return true;
	const name = change.object.metadata.name;
	const member = name ? memberOf(change.kind, name) : null;
	return member !== null && shown.has(member);
}

/** The members on screen as the watch reads them; it never causes a render. */
export class OnScreen {
	private shown: ReadonlySet<string> = NONE;

	/** The members now shown (none when the screen shows no member's row). */
	show(members: Iterable<string>): void {
		const next = new Set(members);
		this.shown = next.size > 0 ? next : NONE;
	}

	/** The members shown, as a set (the same set until the next show). */
	members(): ReadonlySet<string> {
		return this.shown;
	}

	/** Whether a member's row is on screen. */
	shows(member: string): boolean {
		return this.shown.has(member);
	}

	/** Whether a watch change must be drawn at once (see urgentChange). */
	urgent(change: WatchChange): boolean {
		return urgentChange(change, this.shown);
	}
}
