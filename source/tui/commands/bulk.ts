/** The marked members a bulk release or maintenance acts on, and its one confirmation. */

import {
	type BulkAction,
	type BulkMember,
	bulkVerb,
	type ConsoleState,
	currentPool,
} from '../store/store.js';
import type { ConsoleApi } from './command.js';

/** The maintenance reason a prompt starts with (the admin edits it). */
export function defaultMaintenanceReason(state: ConsoleState): string {
	return `set by ${state.session.actor} in the console`;
}

/** The marked members as a bulk action lists them (in index order), each with why it is skipped. */
export function bulkMembers(state: ConsoleState, action: BulkAction): BulkMember[] {
	const p = currentPool(state);
	const byName = new Map((p?.rows ?? []).map((r) => [r.name, r]));
	const rows = [...state.marks].flatMap((name) => byName.get(name) ?? []);
	rows.sort((a, b) => a.index - b.index);
	return rows.map((r) => {
		let skip = '';
		if (action === 'release' && !r.hasLease) skip = 'no claim';
		else if (action === 'maintenance-on' && r.state === 'Missing') skip = 'does not exist yet';
		else if (action === 'maintenance-off' && !r.maintenance) skip = 'not in maintenance';
		return { name: r.name, holder: r.leaseHolder, skip };
	});
}

/** Whether x and m act on the marks (with marks, on the members screen). */
export function actsOnMarks(state: ConsoleState, screen = state.screen): boolean {
	return screen === 'members' && state.marks.size > 0;
}

/** Whether a member of the open pool is in maintenance. */
export function isInMaintenance(state: ConsoleState, member: string): boolean {
	const p = currentPool(state);
	const i = p?.positions.get(member);
	return i !== undefined && Boolean(p?.rows[i]?.maintenance);
}

const NOTHING: Record<BulkAction, string> = {
	release: 'none of the marked members has a claim',
	'maintenance-on': 'none of the marked members exists yet',
	'maintenance-off': 'none of the marked members is in maintenance',
};

/** Opens the one confirmation of a bulk action, or says why there is nothing to act on. */
export function openBulk(s: ConsoleApi, action: BulkAction): void {
	const members = bulkMembers(s, action);
	if (!members.some((m) => !m.skip)) {
		s.setStatus(`${bulkVerb(action)}: ${NOTHING[action]}`, 'error');
		return;
	}
	s.setPrompt({
		kind: 'bulk',
		action,
		members,
		value: action === 'maintenance-on' ? defaultMaintenanceReason(s) : '',
		scroll: 0,
	});
}
