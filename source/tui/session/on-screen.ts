/**
 * Which members are on screen now, so that the watch hands their changes over at once: a
 * change to a row the user sees is drawn within a frame, while one that only moves a count
 * waits for the next batch (source/tui/run.tsx). The members table and the details screen
 * say what they show after each render; every other screen shows no member's row.
 */

import type { WatchChange } from '../../kube/pool-watch.js';
import { memberOf } from '../model/object-index.js';

const NONE: ReadonlySet<string> = new Set();

/** A holder the views write and the watch reads; it never causes a render. */
export class OnScreen {
	private members: ReadonlySet<string> = NONE;

	/** The members now shown (none when the screen shows no member's row). */
	show(members: Iterable<string>): void {
		const next = new Set(members);
		this.members = next.size > 0 ? next : NONE;
	}

	/** Whether a member's row is on screen. */
	shows(member: string): boolean {
		return this.members.has(member);
	}

	/**
	 * Whether a watch change must be drawn at once: a relist, any Lease (claims are what an
	 * admin watches, on every screen) or pool definition, or an object of a member on screen.
	 */
	urgent(change: WatchChange): boolean {
		if (change.op === 'reset' || change.kind === 'leases' || change.kind === 'configmaps')
			return true;
		const name = change.object.metadata.name;
		const member = name ? memberOf(change.kind, name) : null;
		return member !== null && this.members.has(member);
	}
}
