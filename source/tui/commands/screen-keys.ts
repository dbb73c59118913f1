/**
 * Which commands act on which screen (each record's `screens`): the key bar advertises only
 * these, so a key it shows always does something there (no `Space mark` on the audit screen).
 */

import type { Screen } from '../store/store.js';
import { COMMANDS, type Command, recordOf } from './registry.js';

/** The commands that act on each screen, in help order. */
export function screenCommands(screen: Screen): Command[] {
	return COMMANDS.filter((c) => c.screens.includes(screen)).map((c) => c.id);
}

/** Whether a command acts on a screen. */
export function actsOn(screen: Screen, command: Command): boolean {
	return recordOf(command).screens.includes(screen);
}

/** Whether the key bar shows a command's key on a screen: it must act there. */
export function inBar(screen: Screen, command: Command): boolean {
	const r = recordOf(command);
	return (r.bar ?? r.screens).includes(screen) && r.screens.includes(screen);
}
