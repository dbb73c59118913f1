/** Whether a command can run now, and if not, why: read-only, RBAC, or what is selected. */

import { type ConsoleState, selectedRow, sortedPoolNames } from '../store/store.js';
import { bindingOf, Command } from './keys.js';

/** The pool a pool-wide command acts on: the open one, or the one selected on the pools screen. */
export function targetPool(state: ConsoleState, screen = state.screen): string | null {
	return screen === 'pools'
		? (state.selectedPool ?? sortedPoolNames(state)[0] ?? null)
		: state.pool;
}

/** Why a command is unavailable in any context (read-only mode, RBAC), or null. */
export function staticBlock(state: ConsoleState, command: Command): string | null {
	if (bindingOf(command).mutating && state.session.readOnly) return 'read-only mode (--read-only)';
	return state.denied[command] ?? null;
}

/**
 * Why a command cannot run now, or null when it can. `screen` is the screen it would act on
 * (help passes the screen it returns to).
 */
export function blockedReason(
	state: ConsoleState,
	command: Command,
	screen = state.screen,
): string | null {
	const fixed = staticBlock(state, command);
	if (fixed) return fixed;
	if ((screen === 'audit' || screen === 'trace') && bindingOf(command).mutating)
		return `not on the ${screen} screen; go back with Esc first`;
	const onMembers = screen === 'members' || screen === 'details' || screen === 'logs';
	const row = onMembers ? selectedRow(state) : null;
	// with marks, x and m act on every marked member (one confirmation lists them)
	const bulk = screen === 'members' && state.marks.size > 0;
	switch (command) {
		case Command.Sort:
		case Command.Reverse:
			return screen === 'pools' || screen === 'members'
				? null
				: 'sorting works on the pools and members screens';
		case Command.Mark:
			if (screen !== 'members') return 'marks are made on the members screen';
			return row ? null : 'select a member first';
		case Command.MarkExpired:
			// on the pools screen * releases (after one confirmation): release's rights apply
			if (screen === 'pools')
				return (
					staticBlock(state, Command.Release) ??
					(state.busy ? `wait: ${state.busy.label} is running` : null)
				);
			return screen === 'members' ? null : 'marks are made on the members screen';
		case Command.Unmark:
			return state.marks.size > 0 ? null : 'nothing is marked';
		case Command.PrevMember:
		case Command.NextMember:
			return screen === 'details' ? null : 'moves between members in the details view';
		case Command.Previous:
			return screen === 'logs' ? null : 'in the log view (L opens it)';
		case Command.ContainerLog:
			if (!row) return 'select a member first';
			return row.podPhase === '' ? `${row.name} has no pod, so no container log` : null;
		case Command.Filter:
			return screen === 'members' || screen === 'audit' || screen === 'pools'
				? null
				: 'the filter works on the members and audit screens, the find on the pools screen';
		case Command.Claim:
			if (!targetPool(state, screen)) return 'select a pool first';
			return state.busy ? `wait: ${state.busy.label} is running` : null;
		case Command.Reconcile:
			if (!targetPool(state, screen)) return 'select a pool first';
			return state.busy ? `wait: ${state.busy.label} is running` : null;
		case Command.Trace:
			if (screen !== 'pools' && screen !== 'members')
				return 'the trace opens from the pools and members screens';
			return targetPool(state, screen) ? null : 'select a pool first';
		case Command.Loop:
			return targetPool(state, screen) || state.loop.on ? null : 'select a pool first';
		case Command.Release:
			if (bulk) return state.busy ? `wait: ${state.busy.label} is running` : null;
			if (!row) return 'select a member first';
			if (!row.hasLease) return `${row.name} has no claim; there is nothing to release`;
			return state.busy ? `wait: ${state.busy.label} is running` : null;
		case Command.Maintenance:
			if (bulk) return state.busy ? `wait: ${state.busy.label} is running` : null;
			if (!row) return 'select a member first';
			if (row.state === 'Missing') return `${row.name} does not exist yet (no PVC to mark)`;
			return state.busy ? `wait: ${state.busy.label} is running` : null;
		case Command.Console:
			if (!row) return 'select a member first';
			if (row.podPhase !== 'Running' || (row.state !== 'Ready' && row.state !== 'Starting'))
				return `${row.name} has no running pod (state ${row.state}); a console needs one`;
			return null;
		default:
			return null;
	}
}
