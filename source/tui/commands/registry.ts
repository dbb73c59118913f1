/**
 * Every console command, in the order help (and the README's key table) lists them; a
 * command's group comes from its record, and the groups appear in the order their first
 * command does. Adding a command is one record file and one line here.
 */

import { audit } from './audit.js';
import { back } from './back.js';
import { bottom } from './bottom.js';
import { claim } from './claim.js';
import type { CommandRecord, HelpGroup } from './command.js';
import { shellConsole } from './console.js';
import { containerLog } from './container-log.js';
import { down } from './down.js';
import { filter } from './filter.js';
import { help } from './help.js';
import { kubectl } from './kubectl.js';
import { log } from './log.js';
import { loop } from './loop.js';
import { maintenance } from './maintenance.js';
import { mark } from './mark.js';
import { markExpired } from './mark-expired.js';
import { narrateNext } from './narrate-next.js';
import { narratePause } from './narrate-pause.js';
import { nextMember } from './next-member.js';
import { open } from './open.js';
import { pageDown } from './page-down.js';
import { pageUp } from './page-up.js';
import { prevMember } from './prev-member.js';
import { previous } from './previous.js';
import { quit } from './quit.js';
import { reconcile } from './reconcile.js';
import { release } from './release.js';
import { reverse } from './reverse.js';
import { sort } from './sort.js';
import { top } from './top.js';
import { trace } from './trace.js';
import { unmark } from './unmark.js';
import { up } from './up.js';

/** Every command, in help order. */
export const COMMANDS = [
	up,
	down,
	top,
	bottom,
	pageUp,
	pageDown,
	prevMember,
	nextMember,
	open,
	back,
	filter,
	sort,
	reverse,
	mark,
	markExpired,
	unmark,
	claim,
	release,
	reconcile,
	loop,
	maintenance,
	shellConsole,
	log,
	containerLog,
	previous,
	audit,
	trace,
	narratePause,
	narrateNext,
	kubectl,
	help,
	quit,
] as const;

type AnyRecord = (typeof COMMANDS)[number];

/** A command's id. */
export type Command = AnyRecord['id'];

/** Every command's id by name: `Command.Release` is 'release'. */
export const Command = Object.fromEntries(COMMANDS.map((c) => [c.name, c.id])) as {
	readonly [R in AnyRecord as R['name']]: R['id'];
};

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
