/**
 * A console command as one record: the keys that match it, how the key bar and help show it,
 * where it is offered, the rights it needs, when it can run, and what it does. Key matching,
 * the key bar, help, read-only and RBAC blocking and the README's key table all derive from
 * the records (registry.ts collects them, found by scripts/command-records.mjs).
 */

import type { Key } from 'ink';
import type { AccessNeed } from '../../kube/access-review.js';
import type { ConsoleOperations } from '../session/operations.js';
import {
	type ConsoleActions,
	type ConsoleState,
	type ConsoleStore,
	type Screen,
	selectedRow,
	sortedPoolNames,
} from '../store/store.js';

/** One key that matches a command: a plain character, a named key, or a Ctrl chord. */
export type KeyMatch =
	| { char: string }
	| { key: 'up' | 'down' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' }
	| { ctrl: string };

/** The groups of keys help shows, in order. */
export const HELP_GROUP_ORDER = [
	'Move',
	'Find, sort, mark',
	'Act on the cluster',
	'Views',
] as const;

/** A group of keys help shows. */
export type HelpGroup = (typeof HELP_GROUP_ORDER)[number];

/**
 * Every command's name (of its `Command.<Name>` constant) and id. Each record file adds its
 * own entry (`declare module './command.js'`), so the ids are known to the compiler without
 * a list of them; defineCommand refuses a record whose name and id are not declared so.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the record files add the entries
export interface CommandIds {}

/** What a command acts through. */
export interface KeyContext {
	store: ConsoleStore;
	ops: ConsoleOperations;
	/** Unmounts the app (the runner then reads the store's request). */
	exit(): void;
	/** Rows in a page of the table. */
	pageSize(): number;
	/** The last first line the text of the details, help or log view can scroll to. */
	scrollMax?(): number;
}

/** The store's state and actions, as a command reads and calls them. */
export type ConsoleApi = ConsoleState & ConsoleActions;

/**
 * A mode some commands belong to (the narrated demo's): while it holds, its commands take
 * their keys before any other command bound to them; otherwise their keys do nothing.
 */
export interface CommandMode {
	/** What the key bar and help call it (`while narrating, Space is pause`). */
	name: string;
	active(state: ConsoleState): boolean;
}

/** One command. */
export interface CommandRecord<Name extends string = string, Id extends string = string> {
	/** The name of its `Command.<Name>` constant. */
	name: Name;
	id: Id;
	/** The keys that match it. */
	match: readonly KeyMatch[];
	/** The keys, as shown to the user (help, README). */
	keys: string;
	/** The short label for the key hint line. */
	hint: string;
	/** What the command does (help and README). */
	description: string;
	group: HelpGroup;
	/** Its place in its group (help, the README's key table): lower first. */
	order: number;
	/** The screens it acts on. */
	screens: readonly Screen[];
	/** The screens whose key bar shows it (default: every screen it acts on). */
	bar?: readonly Screen[];
	/** The keys the bar shows (default: keys). */
	barKeys?: string;
	/** The bar's label on some screens (default: hint). */
	barHint?: Partial<Record<Screen, string>>;
	/** The command changes the cluster (gone in read-only mode). */
	mutating: boolean;
	/** The rights it needs, checked with SelfSubjectAccessReview (see access.ts). */
	needs?: readonly AccessNeed[];
	/** Why it cannot run now on screen (the one it would act on), or null. */
	available?(state: ConsoleState, screen: Screen): string | null;
	/** Running it leaves the status-line message in place. */
	keepsStatus?: boolean;
	/** The mode whose keys it is (absent: its keys are its own always, unless a mode takes them). */
	mode?: CommandMode;
	run(ctx: KeyContext): void;
}

/** A command record, its name and id as its file declares them in CommandIds. */
export function defineCommand<const Name extends keyof CommandIds & string>(
	record: CommandRecord<Name, CommandIds[Name]>,
): CommandRecord<Name, CommandIds[Name]> {
	return record;
}

/** Whether a module's export is a command record (what registry.ts collects). */
export function isCommandRecord(value: unknown): value is CommandRecord {
	if (typeof value !== 'object' || value === null) return false;
	const r = value as Partial<CommandRecord>;
	return (
		typeof r.id === 'string' &&
		typeof r.name === 'string' &&
		Array.isArray(r.match) &&
		typeof r.order === 'number' &&
		typeof r.run === 'function'
	);
}

/** Whether a key press matches one of a command's keys. */
export function matches(m: KeyMatch, input: string, key: Key): boolean {
	if ('ctrl' in m) return key.ctrl && input === m.ctrl;
	if ('key' in m) {
		const flag = { up: key.upArrow, down: key.downArrow }[m.key as 'up' | 'down'];
		return flag ?? Boolean(key[m.key as Exclude<typeof m.key, 'up' | 'down'>]);
	}
	return !key.ctrl && !key.meta && input === m.char;
}

/** "wait: <operation> is running" while one runs, else null. */
export function busyBlock(state: ConsoleState): string | null {
	return state.busy ? `wait: ${state.busy.label} is running` : null;
}

/** The screens where the table's selected member is the one acted on. */
export function onMemberScreen(screen: Screen): boolean {
	return screen === 'members' || screen === 'details' || screen === 'logs';
}

/** The screens whose text scrolls (the moving keys scroll it). */
export function scrollsText(screen: Screen): boolean {
	return (
		screen === 'details' ||
		screen === 'trace' ||
		screen === 'help' ||
		screen === 'logs' ||
		screen === 'text'
	);
}

/** Scrolls the text of the screen by delta lines (Infinity: the end). */
export function scrollBy(ctx: KeyContext, delta: number): void {
	const s = ctx.store.getState();
	const max = Math.max(0, ctx.scrollMax?.() ?? 0);
	const cur = s.scroll < 0 ? max : Math.min(s.scroll, max);
	const next = Math.max(0, Math.min(max, cur + delta));
	// at the end the log view follows what comes
	s.setScroll(next >= max && delta > 0 ? -1 : next);
}

/** A page of rows or lines. */
export function page(ctx: KeyContext): number {
	return Math.max(1, ctx.pageSize());
}

/** Every screen: the moving keys, Esc, help and quit act on each. */
export const ALL_SCREENS: readonly Screen[] = [
	'pools',
	'members',
	'details',
	'audit',
	'trace',
	'logs',
	'help',
	'text',
];

/** The screens that show the pools or one pool's members (the log toggles under them). */
export const TABLE_SCREENS: readonly Screen[] = ['pools', 'members', 'details', 'audit', 'trace'];

/** The pool a pool-wide command acts on: the open one, or the one selected on the pools screen. */
export function targetPool(state: ConsoleState, screen = state.screen): string | null {
	return screen === 'pools'
		? (state.selectedPool ?? sortedPoolNames(state)[0] ?? null)
		: state.pool;
}

/** The member a command acts on: the selected one, on the screens that have one. */
export function memberRow(state: ConsoleState, screen: Screen) {
	return onMemberScreen(screen) ? selectedRow(state) : null;
}

/** Why a command is unavailable in any context (read-only mode, RBAC), or null. */
export function staticBlockOf(state: ConsoleState, record: CommandRecord): string | null {
	if (record.mutating && state.session.readOnly) return 'read-only mode (--read-only)';
	return (state.denied as Readonly<Record<string, string | undefined>>)[record.id] ?? null;
}

/** What every moving key shares: every screen, not in the key bar, changes nothing, keeps the message. */
export const MOVE_KEY = {
	group: 'Move',
	screens: ALL_SCREENS,
	bar: [],
	mutating: false,
	keepsStatus: true,
} as const;

/**
 * A moving key: by delta rows in a table, or lines on a text screen (`page`: a page of
 * either; 'top' and 'bottom': the first row or line, the last).
 */
export function moveOrScroll(
	ctx: KeyContext,
	delta: number | 'page' | '-page' | 'top' | 'bottom',
): void {
	const s = ctx.store.getState();
	const text = scrollsText(s.screen);
	if (delta === 'top' || delta === 'bottom') {
		if (text) s.setScroll(delta === 'top' ? 0 : -1);
		else s.moveTo(delta);
		return;
	}
	const n = delta === 'page' ? page(ctx) : delta === '-page' ? -page(ctx) : delta;
	if (text) scrollBy(ctx, n);
	else s.move(n);
}
