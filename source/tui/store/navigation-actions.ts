/** The navigation's actions: the screens, the selection, the filter and the find, the sorts, the scroll, and what is on screen. */

import { auditLines } from '../model/audit-filter.js';
import { findHits } from '../model/find-hits.js';
import type { MemberColumn } from '../model/member-columns.js';
import type { PoolColumn } from '../model/pool-columns.js';
import { settledPools } from './cluster-actions.js';
import type { StoreContext } from './context.js';
import type { AuditScope, Screen } from './navigation-state.js';
import {
	selectedAuditPosition,
	selectedPosition,
	sortedPoolNames,
	visibleRows,
} from './selectors.js';

/** The navigation's actions. */
export interface NavigationActions {
	/** Moves the selection by delta rows (clamped) on the current screen. */
	move(delta: number): void;
	/** Selects the first (-Infinity) or last (Infinity) row. */
	moveTo(edge: 'top' | 'bottom'): void;
	/** Selects a member by name. */
	selectMember(name: string): void;
	/** Opens a pool on the members screen. */
	openPool(pool: string): void;
	/** Switches screens. */
	setScreen(screen: Screen): void;
	/** Shows another group of keys in help (from its first line). */
	setHelpGroup(group: number): void;
	/** Sets the filter text. */
	setFilter(filter: string): void;
	/** Sets the find text of the pools screen (its first hit selected). */
	setFind(find: string): void;
	/** Opens the audit screen on a scope. */
	openAudit(scope: AuditScope): void;
	/** Sets the audit screen's filter. */
	setAuditFilter(filter: string): void;
	/** Opens the trace screen on a pool. */
	openTrace(pool: string): void;
	/** The members table stops marking what the last plan touches. */
	clearTraceMarks(): void;
	/** Sorts the members or pools table (the current screen's) by a column, or reverses it. */
	setSort(sort: { column?: string; reverse?: boolean }): void;
	/** Scrolls the text of the details, help or log view to a line (-1: the end). */
	setScroll(line: number): void;
	/**
	 * Says which members' rows are on screen now (none when the screen shows no member's row):
	 * the watch draws their changes at once. A set equal to the last changes nothing.
	 */
	showMembers(members: Iterable<string>): void;
}

/** The navigation's actions over a store. */
export function navigationActions(ctx: StoreContext): NavigationActions {
	const { set, get } = ctx;
	return {
		move: (delta) => move(ctx, delta),
		moveTo(edge) {
			get().move(edge === 'top' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY);
		},
		selectMember(name) {
			const rows = visibleRows(get());
			const i = rows.findIndex((r) => r.name === name);
			set({ selected: name, selectedIndex: i >= 0 ? i : get().selectedIndex });
		},
		openPool(pool) {
			const same = get().pool === pool;
			// a pool whose members wait for the first lists is derived as it opens
			const pools = settledPools(ctx, pool);
			set({
				...(pools ? { pools } : {}),
				pool,
				selectedPool: pool,
				screen: 'members',
				status: null,
				...(same
					? {}
					: { selected: null, selectedIndex: 0, filter: '', marks: new Set(), markColumn: false }),
			});
		},
		setScreen: (screen) => setScreen(ctx, screen),
		setHelpGroup(helpGroup) {
			set({ helpGroup, scroll: 0 });
		},
		setFilter(filter) {
			set({ filter });
			const state = get();
			const rows = visibleRows(state);
			const at = selectedPosition(state, rows);
			set({ selected: rows[at]?.name ?? state.selected, selectedIndex: at });
		},
		setFind(find) {
			// the find searches every pool's members: those waiting for the first lists are derived
			const pools = find.trim() ? settledPools(ctx) : null;
			set({ ...(pools ? { pools } : {}), find, findSelected: 0 });
		},
		openAudit: (scope) => openAudit(ctx, scope),
		setAuditFilter(filter) {
			set({ auditView: { ...get().auditView, filter, selected: null, selectedIndex: 0 } });
		},
		openTrace: (pool) => openTrace(ctx, pool),
		clearTraceMarks() {
			if (get().traceMarks !== null) set({ traceMarks: null });
		},
		setSort: (sort) => setSort(ctx, sort),
		setScroll(line) {
			set({ scroll: line });
		},
		showMembers(members) {
			const next = new Set(members);
			const { onScreen, shownMembers } = get();
			// the same rows (a frame that only changed their cells): no update, no selector run
			if (sameMembers(next, shownMembers)) return;
			onScreen.show(next);
			set({ shownMembers: onScreen.members() });
		},
	};
}

function sameMembers(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
	if (a === b) return true;
	if (a.size !== b.size) return false;
	for (const m of a) if (!b.has(m)) return false;
	return true;
}

function move({ set, get }: StoreContext, delta: number): void {
	const state = get();
	if (state.screen === 'pools' && state.find) {
		const hits = findHits(state);
		if (hits.length === 0) return;
		const at = Math.max(0, Math.min(state.findSelected, hits.length - 1));
		set({ findSelected: Math.max(0, Math.min(hits.length - 1, at + delta)) });
		return;
	}
	if (state.screen === 'audit') {
		const lines = auditLines(state);
		if (lines.length === 0) return;
		const at = selectedAuditPosition(state.auditView, lines);
		const next = Math.max(0, Math.min(lines.length - 1, at + delta));
		set({
			auditView: {
				...state.auditView,
				selected: lines[next]?.name ?? null,
				selectedIndex: next,
			},
		});
		return;
	}
	if (state.screen === 'pools') {
		const names = sortedPoolNames(state);
		if (names.length === 0) return;
		const at = Math.max(0, names.indexOf(state.selectedPool ?? ''));
		const next = Math.max(0, Math.min(names.length - 1, at + delta));
		set({ selectedPool: names[next] ?? null });
		return;
	}
	const rows = visibleRows(state);
	if (rows.length === 0) return;
	const at = selectedPosition(state, rows);
	const next = Math.max(0, Math.min(rows.length - 1, at + delta));
	set({ selected: rows[next]?.name ?? null, selectedIndex: next });
}

function setScreen({ set, get }: StoreContext, screen: Screen): void {
	const state = get();
	if (screen === 'help')
		set({
			screen,
			helpReturn: state.screen === 'help' ? state.helpReturn : state.screen,
			...(state.screen === 'help' ? {} : { scroll: 0, helpGroup: 0 }),
		});
	else if (state.screen === 'help' || screen === state.screen)
		// back from help: the log view follows again
		set(screen === 'logs' && state.screen === 'help' ? { screen, scroll: -1 } : { screen });
	// navigation: the message belonged to the screen left
	else
		set({
			screen,
			status: null,
			scroll: screen === 'logs' ? -1 : 0,
			...(screen === 'logs' && state.screen !== 'logs' ? { logReturn: state.screen } : {}),
		});
}

function openAudit({ set, get }: StoreContext, scope: AuditScope): void {
	const state = get();
	set({
		screen: 'audit',
		status: null,
		auditView: {
			scope,
			back:
				state.screen === 'audit' || state.screen === 'help' ? state.auditView.back : state.screen,
			filter: '',
			selected: null,
			selectedIndex: 0,
		},
	});
}

function openTrace({ set, get }: StoreContext, pool: string): void {
	const state = get();
	const back =
		state.screen === 'trace' || state.screen === 'help' ? state.traceView.back : state.screen;
	set({
		screen: 'trace',
		status: null,
		traceView: { pool, back },
		traceMarks: back === 'members' ? pool : state.traceMarks,
	});
}

function setSort({ set, get }: StoreContext, sort: { column?: string; reverse?: boolean }): void {
	const state = get();
	const screen = state.screen === 'help' ? state.helpReturn : state.screen;
	if (screen === 'pools')
		set({
			poolSort: {
				column: (sort.column as PoolColumn | undefined) ?? state.poolSort.column,
				reverse: sort.reverse ?? state.poolSort.reverse,
			},
		});
	else
		set({
			memberSort: {
				column: (sort.column as MemberColumn | undefined) ?? state.memberSort.column,
				reverse: sort.reverse ?? state.memberSort.reverse,
			},
		});
}
