/**
 * Which commands act on which screen: the key bar advertises only these, so a key it shows
 * always does something there (no `Space mark` on the audit screen).
 */

import { Command } from './keys.js';
import type { Screen } from './store.js';

const MOVE: readonly Command[] = [
	Command.Up,
	Command.Down,
	Command.Top,
	Command.Bottom,
	Command.PageUp,
	Command.PageDown,
];

const ALWAYS: readonly Command[] = [Command.Log, Command.Help, Command.Quit];

/** The commands that act on each screen. */
export const SCREEN_COMMANDS: Readonly<Record<Screen, readonly Command[]>> = {
	pools: [
		...MOVE,
		Command.Open,
		Command.Back,
		Command.Filter,
		Command.Sort,
		Command.Reverse,
		Command.MarkExpired,
		Command.Claim,
		Command.Reconcile,
		Command.Loop,
		Command.Audit,
		...ALWAYS,
	],
	members: [
		...MOVE,
		Command.Open,
		Command.Back,
		Command.Filter,
		Command.Sort,
		Command.Reverse,
		Command.Mark,
		Command.MarkExpired,
		Command.Unmark,
		Command.Claim,
		Command.Release,
		Command.Reconcile,
		Command.Loop,
		Command.Maintenance,
		Command.Console,
		Command.ContainerLog,
		Command.Audit,
		...ALWAYS,
	],
	details: [
		...MOVE,
		Command.PrevMember,
		Command.NextMember,
		Command.Back,
		Command.Claim,
		Command.Release,
		Command.Reconcile,
		Command.Loop,
		Command.Maintenance,
		Command.Console,
		Command.ContainerLog,
		Command.Audit,
		...ALWAYS,
	],
	audit: [...MOVE, Command.Back, Command.Filter, ...ALWAYS],
	logs: [...MOVE, Command.Back, Command.Previous, ...ALWAYS],
	help: [...MOVE, Command.Back, Command.Help, Command.Quit],
};

/** Whether a command acts on a screen. */
export function actsOn(screen: Screen, command: Command): boolean {
	return SCREEN_COMMANDS[screen].includes(command);
}
