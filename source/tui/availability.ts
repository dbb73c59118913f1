/** Whether a command can run now, and if not, why: read-only, RBAC, or what is selected. */

import { bindingOf, Command } from './keys.js';
import { type ConsoleState, selectedRow } from './store.js';

/** The pool a pool-wide command acts on: the open one, or the one selected on the pools screen. */
export function targetPool(state: ConsoleState, screen = state.screen): string | null {
	return screen === 'pools' ? (state.selectedPool ?? state.poolNames[0] ?? null) : state.pool;
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
	if (screen === 'audit' && bindingOf(command).mutating)
		return 'not on the audit screen; go back with Esc first';
	const onMembers = screen === 'members' || screen === 'details';
	const row = onMembers ? selectedRow(state) : null;
	switch (command) {
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
		case Command.Loop:
			return targetPool(state, screen) || state.loop.on ? null : 'select a pool first';
		case Command.Release:
			if (!row) return 'select a member first';
			if (!row.hasLease) return `${row.name} has no claim; there is nothing to release`;
			return state.busy ? `wait: ${state.busy.label} is running` : null;
		case Command.Maintenance:
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
