/**
 * Whether a command can run now, and if not, why: read-only, RBAC, the screen, or what is
 * selected. The rules are the records' own (`available`); here they are applied.
 */

import type { ConsoleState } from '../store/store.js';
import { type CommandRecord, staticBlockOf, targetPool } from './command.js';
import { keysTakenBy } from './keys.js';
import { type Command, recordOf } from './registry.js';

export { targetPool };

/** Why a command is unavailable in any context (read-only mode, RBAC), or null. */
export function staticBlock(state: ConsoleState, command: Command): string | null {
	return staticBlockOf(state, recordOf(command));
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
	return blockedReasonOf(state, recordOf(command), screen);
}

/** Why a command (its record) cannot run now on screen, or null when it can. */
export function blockedReasonOf(
	state: ConsoleState,
	record: CommandRecord,
	screen = state.screen,
): string | null {
	const fixed = staticBlockOf(state, record);
	if (fixed) return fixed;
	const taken = keysTakenBy(state, record);
	if (taken?.mode) return `while ${taken.mode.name}, ${record.keys} is ${taken.hint}`;
	if ((screen === 'audit' || screen === 'trace') && record.mutating)
		return `not on the ${screen} screen; go back with Esc first`;
	return record.available?.(state, screen) ?? null;
}
