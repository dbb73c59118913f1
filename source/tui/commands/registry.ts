/**
 * Every console command, found rather than listed: the build and the tests make the module
 * `virtual:console-commands` from every file of this folder that defines a command
 * (scripts/command-records.mjs), and the records are put in help order (and the README's key
 * table's) by their group and their order in it. Adding a command is its record file.
 */

import modules from 'virtual:console-commands';
import {
	type CommandIds,
	type CommandRecord,
	HELP_GROUP_ORDER,
	type HelpGroup,
	isCommandRecord,
} from './command.js';

/** A command's id. */
export type Command = CommandIds[keyof CommandIds];

/** Every command, in help order (defineCommand made each id one of CommandIds). */
export const COMMANDS: readonly CommandRecord<string, Command>[] = modules
	.flatMap((m) => Object.values(m).filter(isCommandRecord) as CommandRecord<string, Command>[])
	.sort(
		(a, b) =>
			HELP_GROUP_ORDER.indexOf(a.group) - HELP_GROUP_ORDER.indexOf(b.group) || a.order - b.order,
	);

/** Every command's id by name: `Command.Release` is 'release'. */
export const Command = Object.fromEntries(
	COMMANDS.map((c) => [c.name, c.id]),
) as Readonly<CommandIds>;

const BY_ID: ReadonlyMap<string, CommandRecord> = new Map(COMMANDS.map((c) => [c.id, c]));

/** The record of a command. */
export function recordOf(command: Command): CommandRecord {
	const r = BY_ID.get(command);
	if (!r) throw new Error(`no command ${command}`);
	return r;
}

/** The groups help shows, in order, each with its commands in help order. */
export const HELP_GROUPS: ReadonlyArray<{ title: HelpGroup; commands: readonly Command[] }> = [
	...new Set(COMMANDS.map((c) => c.group)),
].map((title) => ({ title, commands: COMMANDS.filter((c) => c.group === title).map((c) => c.id) }));
