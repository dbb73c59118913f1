/**
 * Which commands act on which screen: the key bar advertises only these, so a key it shows
 * always does something there (no `Space mark` on the audit screen).
 */

import type { Screen } from '../store/store.js';
import { Command, MOVE_COMMANDS } from './keys.js';

const ALWAYS: readonly Command[] = [Command.Log, Command.Help, Command.Quit];

/** Filter (find on the pools screen) and sort. */
const FIND_SORT: readonly Command[] = [Command.Filter, Command.Sort, Command.Reverse];

/** What acts on the pool: the open one, or the one selected on the pools screen. */
const ON_POOL: readonly Command[] = [Command.Claim, Command.Reconcile, Command.Loop];

/** What acts on the selected member. */
const ON_MEMBER: readonly Command[] = [
	Command.Release,
	Command.Maintenance,
	Command.Console,
	Command.ContainerLog,
];

/** The commands that act on each screen. */
export const SCREEN_COMMANDS: Readonly<Record<Screen, readonly Command[]>> = {
	pools: [
		...MOVE_COMMANDS,
		Command.Open,
		Command.Back,
		...FIND_SORT,
		Command.MarkExpired,
		...ON_POOL,
		Command.Audit,
		Command.Trace,
		...ALWAYS,
	],
	members: [
		...MOVE_COMMANDS,
		Command.Open,
		Command.Back,
		...FIND_SORT,
		Command.Mark,
		Command.MarkExpired,
		Command.Unmark,
		...ON_POOL,
		...ON_MEMBER,
		Command.Audit,
		Command.Trace,
		...ALWAYS,
	],
	details: [
		...MOVE_COMMANDS,
		Command.PrevMember,
		Command.NextMember,
		Command.Back,
		...ON_POOL,
		...ON_MEMBER,
		Command.Audit,
		...ALWAYS,
	],
	audit: [...MOVE_COMMANDS, Command.Back, Command.Filter, ...ALWAYS],
	trace: [...MOVE_COMMANDS, Command.Back, ...ALWAYS],
	logs: [...MOVE_COMMANDS, Command.Back, Command.Previous, ...ALWAYS],
	help: [...MOVE_COMMANDS, Command.Back, Command.Help, Command.Quit],
};

/** Whether a command acts on a screen. */
export function actsOn(screen: Screen, command: Command): boolean {
	return SCREEN_COMMANDS[screen].includes(command);
}
