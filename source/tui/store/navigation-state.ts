/**
 * The navigation's slice of the console state: the screen, the open and selected pool and
 * member, the filter, the find, the sorts, the scroll, the audit and trace screens' own
 * state, and which members' rows are on screen.
 */

import type { MemberColumn } from '../model/member-columns.js';
import type { PoolColumn } from '../model/pool-columns.js';
import { DEFAULT_MEMBER_SORT, DEFAULT_POOL_SORT, type SortOrder } from '../model/sorting.js';
import type { OnScreen } from '../session/on-screen.js';

/** The screens. */
export type Screen =
	| 'pools'
	| 'members'
	| 'details'
	| 'logs'
	| 'help'
	| 'audit'
	| 'trace'
	/** A command's read-only text (textView). */
	| 'text';

/** The read-only text a command shows (the text screen): a title and lines, scrollable. */
export interface TextView {
	title: string;
	lines: readonly string[];
	/** The screen Esc returns to. */
	back: Screen;
}

/** What the audit screen shows: all shown pools, one pool, or one member. */
export interface AuditScope {
	pool?: string;
	member?: string;
}

/** The audit screen's own state. */
export interface AuditView {
	scope: AuditScope;
	/** The screen Esc returns to. */
	back: Screen;
	/** The filter text (see audit-filter.ts). */
	filter: string;
	/** The selected line, by Event name, and where it was. */
	selected: string | null;
	selectedIndex: number;
}

/** The navigation's state. */
export interface NavigationState {
	screen: Screen;
	/** The screen help returns to. */
	helpReturn: Screen;
	/** The group of keys help shows when they do not all fit (see help-view.tsx). */
	helpGroup: number;
	/** The open pool (null on the pools screen before one is opened). */
	pool: string | null;
	/** The pool selected on the pools screen. */
	selectedPool: string | null;
	/** The selected member, by name. */
	selected: string | null;
	/** Where the selection was, to fall back on when its member goes away. */
	selectedIndex: number;
	filter: string;
	/** The find on the pools screen ('' = none): members, pools and holders across the pools shown. */
	find: string;
	/** The selected hit of the find, by position. */
	findSelected: number;
	/** The members table's sort (kept while the console runs). */
	memberSort: SortOrder<MemberColumn>;
	/** The pools table's sort. */
	poolSort: SortOrder<PoolColumn>;
	/** The first line shown of the details, help and log texts (-1: the end, following). */
	scroll: number;
	/** The screen the log view returns to. */
	logReturn: Screen;
	auditView: AuditView;
	/** The trace screen: its pool key and the screen Esc returns to. */
	traceView: { pool: string; back: Screen };
	/** The text screen's text (set by the command that opens it). */
	textView?: TextView;
	/** The pool key whose members table marks the members its last plan touches (the trace was opened from it), or null. */
	traceMarks: string | null;
	/**
	 * The members whose rows are on screen (the members table's window, the member on the
	 * details screen; none elsewhere), published by showMembers after each render.
	 */
	shownMembers: ReadonlySet<string>;
	/**
	 * The watch's view of shownMembers (it steers which changes are drawn at once): the store
	 * alone writes it, from showMembers.
	 */
	onScreen: OnScreen;
}

/** The first screen: the pool's members, or the pools. */
export function initialNavigationState(pool: string | null, onScreen: OnScreen): NavigationState {
	const screen: Screen = pool ? 'members' : 'pools';
	return {
		screen,
		helpReturn: screen,
		helpGroup: 0,
		pool,
		selectedPool: pool,
		selected: null,
		selectedIndex: 0,
		filter: '',
		find: '',
		findSelected: 0,
		memberSort: DEFAULT_MEMBER_SORT,
		poolSort: DEFAULT_POOL_SORT,
		scroll: 0,
		logReturn: 'members',
		auditView: { scope: {}, back: 'pools', filter: '', selected: null, selectedIndex: 0 },
		traceView: { pool: '', back: 'pools' },
		traceMarks: null,
		shownMembers: onScreen.members(),
		onScreen,
	};
}
