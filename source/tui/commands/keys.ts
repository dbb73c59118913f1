/** The console's commands and the keys bound to them. */

import type { Key } from 'ink';

/** Every command the console knows. */
export const Command = {
	Up: 'up',
	Down: 'down',
	Top: 'top',
	Bottom: 'bottom',
	PageUp: 'page-up',
	PageDown: 'page-down',
	PrevMember: 'prev-member',
	NextMember: 'next-member',
	Open: 'open',
	Back: 'back',
	Filter: 'filter',
	Sort: 'sort',
	Reverse: 'reverse',
	Mark: 'mark',
	MarkExpired: 'mark-expired',
	Unmark: 'unmark',
	Claim: 'claim',
	Release: 'release',
	Reconcile: 'reconcile',
	Loop: 'loop',
	Maintenance: 'maintenance',
	Console: 'console',
	Log: 'log',
	ContainerLog: 'container-log',
	Previous: 'previous',
	Audit: 'audit',
	Trace: 'trace',
	Help: 'help',
	Quit: 'quit',
} as const;

/** A command. */
export type Command = (typeof Command)[keyof typeof Command];

/** A key binding as the help screen lists it. */
export interface KeyBinding {
	command: Command;
	/** The keys, as shown to the user. */
	keys: string;
	/** The short label for the key hint line. */
	hint: string;
	/** What the command does. */
	description: string;
	/** The command changes the cluster (gone in read-only mode). */
	mutating: boolean;
}

/** Every binding, in the order help lists them. */
export const KEY_BINDINGS: readonly KeyBinding[] = [
	{
		command: Command.Up,
		keys: '↑ k',
		hint: 'up',
		description: 'move up (scrolls details, help and the log view)',
		mutating: false,
	},
	{
		command: Command.Down,
		keys: '↓ j',
		hint: 'down',
		description: 'move down (scrolls details, help and the log view)',
		mutating: false,
	},
	{
		command: Command.Top,
		keys: 'g',
		hint: 'top',
		description: 'first row, or the top of the text',
		mutating: false,
	},
	{
		command: Command.Bottom,
		keys: 'G',
		hint: 'bottom',
		description: 'last row, or the end of the text (the log view follows from there)',
		mutating: false,
	},
	{
		command: Command.PageUp,
		keys: 'PgUp',
		hint: 'page up',
		description: 'page up',
		mutating: false,
	},
	{
		command: Command.PageDown,
		keys: 'PgDn',
		hint: 'page down',
		description: 'page down',
		mutating: false,
	},
	{
		command: Command.PrevMember,
		keys: '[',
		hint: 'prev',
		description: 'in details: the previous member, in the members screen order',
		mutating: false,
	},
	{
		command: Command.NextMember,
		keys: ']',
		hint: 'next',
		description: 'in details: the next member, in the members screen order',
		mutating: false,
	},
	{
		command: Command.Open,
		keys: 'Enter',
		hint: 'open',
		description: 'open the pool, or the member details (long lines wrap)',
		mutating: false,
	},
	{
		command: Command.Back,
		keys: 'Esc',
		hint: 'back',
		description: 'back, clearing the filter first; cancels a prompt, dismisses a message',
		mutating: false,
	},
	{
		command: Command.Filter,
		keys: '/',
		hint: 'filter',
		description: 'members: filter (regex; ! inverts) · pools: find · audit: pool: member: …',
		mutating: false,
	},
	{
		command: Command.Sort,
		keys: 'o',
		hint: 'sort',
		description: 'sort the pools or members by the next column (kept across refreshes)',
		mutating: false,
	},
	{
		command: Command.Reverse,
		keys: 'O',
		hint: 'reverse',
		description: 'reverse the sort order',
		mutating: false,
	},
	{
		command: Command.Mark,
		keys: 'Space',
		hint: 'mark',
		description: 'mark or unmark the selected member (x and m then act on every mark)',
		mutating: false,
	},
	{
		command: Command.MarkExpired,
		keys: '*',
		hint: 'mark expired',
		description:
			'members: mark every expired claim (the filter lets through) · pools, find: release every expired claim shown (one confirmation)',
		mutating: false,
	},
	{
		command: Command.Unmark,
		keys: 'U',
		hint: 'unmark',
		description: 'unmark every member',
		mutating: false,
	},
	{
		command: Command.Claim,
		keys: 'c',
		hint: 'claim',
		description: 'claim a free member for an identity',
		mutating: true,
	},
	{
		command: Command.Release,
		keys: 'x',
		hint: 'release',
		description: 'release --force the selected or every marked member (destroys its data)',
		mutating: true,
	},
	{
		command: Command.Reconcile,
		keys: 'r',
		hint: 'reconcile',
		description: 'reconcile the pool now',
		mutating: true,
	},
	{
		command: Command.Loop,
		keys: 'a',
		hint: 'loop',
		description: 'live reconcile loop on/off (interval and watch-triggered)',
		mutating: true,
	},
	{
		command: Command.Maintenance,
		keys: 'm',
		hint: 'maint',
		description: 'maintenance on (asks a reason) or off: the selected or marked members',
		mutating: true,
	},
	{
		command: Command.Console,
		keys: 's',
		hint: 'console',
		description: 'open a shell in the selected member (kubectl exec)',
		mutating: true,
	},
	{
		command: Command.Log,
		keys: 'l',
		hint: 'log',
		description: 'show or hide the activity log',
		mutating: false,
	},
	{
		command: Command.ContainerLog,
		keys: 'L',
		hint: 'container log',
		description: "the selected member's container log, followed live (Esc returns)",
		mutating: false,
	},
	{
		command: Command.Previous,
		keys: 'p',
		hint: 'previous',
		description: "log view: the previous (crashed) container's log, or the current one",
		mutating: false,
	},
	{
		command: Command.Audit,
		keys: 'e',
		hint: 'audit',
		description:
			'audit: who did what (from the cluster Events) to the shown pools, this pool or this member',
		mutating: false,
	},
	{
		command: Command.Trace,
		keys: 't',
		hint: 'trace',
		description:
			"trace: the pool's last plan of this console's reconcile loop, each step live (Esc returns)",
		mutating: false,
	},
	{ command: Command.Help, keys: '?', hint: 'help', description: 'this help', mutating: false },
	{ command: Command.Quit, keys: 'q Ctrl-C', hint: 'quit', description: 'quit', mutating: false },
];

/** The commands that move the selection or scroll the text, on every screen. */
export const MOVE_COMMANDS: readonly Command[] = [
	Command.Up,
	Command.Down,
	Command.Top,
	Command.Bottom,
	Command.PageUp,
	Command.PageDown,
];

/** The groups of keys help shows, in order; every binding is in exactly one. */
export const HELP_GROUPS: ReadonlyArray<{ title: string; commands: readonly Command[] }> = [
	{
		title: 'Move',
		commands: [
			...MOVE_COMMANDS,
			Command.PrevMember,
			Command.NextMember,
			Command.Open,
			Command.Back,
		],
	},
	{
		title: 'Find, sort, mark',
		commands: [
			Command.Filter,
			Command.Sort,
			Command.Reverse,
			Command.Mark,
			Command.MarkExpired,
			Command.Unmark,
		],
	},
	{
		title: 'Act on the cluster',
		commands: [
			Command.Claim,
			Command.Release,
			Command.Reconcile,
			Command.Loop,
			Command.Maintenance,
			Command.Console,
		],
	},
	{
		title: 'Views',
		commands: [
			Command.Log,
			Command.ContainerLog,
			Command.Previous,
			Command.Audit,
			Command.Trace,
			Command.Help,
			Command.Quit,
		],
	},
];

/** The bindings of a help group, in KEY_BINDINGS order. */
export function groupBindings(group: number): KeyBinding[] {
	const commands = HELP_GROUPS[group]?.commands ?? [];
	return KEY_BINDINGS.filter((b) => commands.includes(b.command));
}

/** The binding of a command. */
export function bindingOf(command: Command): KeyBinding {
	const b = KEY_BINDINGS.find((k) => k.command === command);
	if (!b) throw new Error(`no binding for ${command}`);
	return b;
}

/** The commands that change the cluster. */
export const MUTATING_COMMANDS: readonly Command[] = KEY_BINDINGS.filter((b) => b.mutating).map(
	(b) => b.command,
);

/** The command a key press means, or null. */
export function commandOf(input: string, key: Key): Command | null {
	if (key.ctrl && input === 'c') return Command.Quit;
	// Ink marks a lone Esc as meta too
	if (key.escape) return Command.Back;
	if (key.upArrow) return Command.Up;
	if (key.downArrow) return Command.Down;
	if (key.pageUp) return Command.PageUp;
	if (key.pageDown) return Command.PageDown;
	if (key.home) return Command.Top;
	if (key.end) return Command.Bottom;
	if (key.return) return Command.Open;
	if (key.ctrl || key.meta) return null;
	switch (input) {
		case 'k':
			return Command.Up;
		case 'j':
			return Command.Down;
		case 'g':
			return Command.Top;
		case 'G':
			return Command.Bottom;
		case '/':
			return Command.Filter;
		case 'c':
			return Command.Claim;
		case 'x':
			return Command.Release;
		case 'r':
			return Command.Reconcile;
		case 'a':
			return Command.Loop;
		case 'm':
			return Command.Maintenance;
		case 's':
			return Command.Console;
		case 'l':
			return Command.Log;
		case 'L':
			return Command.ContainerLog;
		case 'p':
			return Command.Previous;
		case '[':
			return Command.PrevMember;
		case ']':
			return Command.NextMember;
		case 'o':
			return Command.Sort;
		case 'O':
			return Command.Reverse;
		case ' ':
			return Command.Mark;
		case '*':
			return Command.MarkExpired;
		case 'U':
			return Command.Unmark;
		case 'e':
			return Command.Audit;
		case 't':
			return Command.Trace;
		case '?':
			return Command.Help;
		case 'q':
			return Command.Quit;
		default:
			return null;
	}
}

/** A key press with no key flag set (a plain character). */
export const NO_KEY: Key = {
	upArrow: false,
	downArrow: false,
	leftArrow: false,
	rightArrow: false,
	pageDown: false,
	pageUp: false,
	home: false,
	end: false,
	return: false,
	escape: false,
	ctrl: false,
	shift: false,
	tab: false,
	backspace: false,
	delete: false,
	meta: false,
	super: false,
	hyper: false,
	capsLock: false,
	numLock: false,
};

/**
 * One key press per character. Ink hands over a burst of plain text (typed fast, pasted, or
 * batched by SSH) as one input; the console treats it as the keys it is made of.
 */
export function keyPresses(input: string, key: Key): Array<[string, Key]> {
	const chars = Array.from(input);
	if (chars.length <= 1) return [[input, key]];
	return chars.map((c): [string, Key] => {
		if (c === '\r' || c === '\n') return ['', { ...NO_KEY, return: true }];
		if (c === '\u007f' || c === '\b') return ['', { ...NO_KEY, backspace: true }];
		if (c === '\t') return ['', { ...NO_KEY, tab: true }];
		// a control character in a burst is its Ctrl key (Ctrl-U, Ctrl-W in a prompt)
		const code = c.charCodeAt(0);
		if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }];
		return [c, { ...NO_KEY, shift: c !== c.toLowerCase() }];
	});
}
