/**
 * The console's state: a vanilla zustand store that lives outside React, so the app can
 * unmount for a console session and mount again with nothing lost. It is fed only by the
 * watches (applyBatch, setConnection), the clock (tick) and the user's actions.
 */

import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineEvent } from '../../engine/context.js';
import type { EventLine } from '../../engine/member-events.js';
import type { TraceEvent } from '../../engine/reconcile-plan.js';
import type { ExpiredClaim } from '../../engine/release-expired.js';
import {
	type ConnectionState,
	WATCH_KINDS,
	type WatchChange,
	type WatchKind,
} from '../../kube/pool-watch.js';
import { readBatch } from '../../kube/watch-boundary.js';
import { type AuditEntry, capAudit } from '../../pool/audit.js';
import type { CommandScope } from '../../pool/command-hint.js';
import type { Command } from '../commands/keys.js';
import { auditLines, refusedByPool } from '../model/audit-filter.js';
import { boundedString } from '../model/bounded-object.js';
import { findHits } from '../model/find-hits.js';
import type { MemberColumn } from '../model/member-columns.js';
import { filterRows } from '../model/member-filter.js';
import type { HintFacts } from '../model/member-hint.js';
import type { MemberRow } from '../model/member-row.js';
import type { ObjectIndex } from '../model/object-index.js';
import { ObjectProblems, problemLine } from '../model/object-problems.js';
import type { PoolColumn } from '../model/pool-columns.js';
import {
	derivePool,
	newlyExpired,
	type PoolDerivation,
	rederiveMembers,
} from '../model/pool-derivation.js';
import { type PoolHistory, recordHistory } from '../model/pool-history.js';
import { PoolIndex } from '../model/pool-index.js';
import {
	DEFAULT_MEMBER_SORT,
	DEFAULT_POOL_SORT,
	type SortOrder,
	sortPoolNames,
	sortRows,
} from '../model/sorting.js';
import { applyTrace, type PoolTrace } from '../model/trace-model.js';
import { OnScreen } from '../session/on-screen.js';

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

/** The audit trail as the console follows it (a watch on ctpool's Events). */
export interface AuditFeed {
	/** off: not started; live: listed and watching; denied: Events cannot be listed. */
	status: 'off' | 'loading' | 'live' | 'denied' | 'error';
	/** Why it is denied or failing, else ''. */
	message: string;
	/** Every audit line seen, newest first (bounded). */
	entries: readonly AuditEntry[];
	/** The time of the oldest line seen, or null. */
	oldest: number | null;
	/**
	 * Lines left out to keep AUDIT_LINES_MAX since the last full list (see capAudit: those
	 * with a forged or wrong time first), and how many of them had such a time.
	 */
	dropped?: number;
	droppedClamped?: number;
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

/** The most audit lines the console keeps (lines with forged times, then the oldest, give way). */
export const AUDIT_LINES_MAX = 5000;

/** A member a bulk action is asked for, as its confirmation lists it. */
export interface BulkMember {
	name: string;
	/** The Lease holder ('' when none). */
	holder: string;
	/** Why the action skips it ('' when it acts on it). */
	skip: string;
}

/** What a bulk confirmation does once accepted. */
export type BulkAction = 'release' | 'maintenance-on' | 'maintenance-off';

/** How a bulk action is named in messages. */
export function bulkVerb(action: BulkAction): string {
	return action === 'release'
		? 'force-release'
		: action === 'maintenance-on'
			? 'maintenance on'
			: 'maintenance off';
}

/**
 * An open prompt: the claim identity, the release confirm, the filter being typed, the
 * maintenance reason, or the one confirmation of an action on every marked member.
 */
export type Prompt =
	| { kind: 'claim'; value: string; cursor?: number; error: string | null }
	| { kind: 'maintenance'; member: string; value: string; cursor?: number }
	| {
			kind: 'bulk';
			action: BulkAction;
			members: BulkMember[];
			/** The maintenance reason (maintenance-on only). */
			value: string;
			/** Where the cursor is in value (absent: at its end). */
			cursor?: number;
			/** The first listed member shown (the list scrolls with ↑ ↓). */
			scroll: number;
	  }
	| {
			kind: 'release';
			member: string;
			holder: string;
			/** Why its Lease will not expire as it should (a stranded member), else absent. */
			stranded?: string;
	  }
	/** The one confirmation of `*` on the pools screen: every expired claim shown, across pools. */
	| { kind: 'expired'; claims: ExpiredClaim[]; scroll: number }
	| { kind: 'filter'; value: string; cursor?: number }
	/** The find on the pools screen being typed (↑↓ pick a hit, Enter opens it). */
	| { kind: 'find'; value: string; cursor?: number };

/** One line of the activity log. */
export interface LogEntry extends EngineEvent {
	id: number;
}

/** A long action in progress. */
export interface Busy {
	label: string;
	startedAt: number;
	/** Progress reported by the action. */
	detail: string;
}

/** The last outcome shown in the status line. */
export interface StatusMessage {
	text: string;
	level: 'info' | 'ok' | 'error';
	/** When it was set, on the store's clock. */
	time: number;
}

/** How long a message that is not an error stays in the status line (ms). */
export const STATUS_TTL_MS = 5000;

/** One recent Event of a member, for the details screen (read by the engine). */
export type { EventLine };

/** The events of the member the details screen shows. */
export interface DetailsEvents {
	member: string;
	loading: boolean;
	events: EventLine[];
	error: string | null;
}

/** The container log the log view follows. */
export interface PodLogView {
	member: string;
	/** The previous (crashed) container's log rather than the current one's. */
	previous: boolean;
	/** waiting: the container ended; the view waits for the member's next one (log-follow.ts). */
	phase: 'connecting' | 'following' | 'waiting' | 'ended' | 'error';
	/** Whose lines these are when not the member's current pod's (`the replaced pod`). */
	note?: string;
	/** Sanitised lines, at most LOG_VIEW_LINES (the oldest go first). */
	lines: readonly string[];
	/** Lines dropped from the front to keep the bound. */
	dropped: number;
	error: string | null;
}

/** The most log lines the log view keeps. */
export const LOG_VIEW_LINES = 5000;

/** What the console runs against; fixed for the session. */
export interface ConsoleSession {
	namespace: string;
	context: string;
	server: string;
	/** The identity the claim prompt is prefilled with ('' when none was given). */
	identity: string;
	/** Who the console acts as in the log. */
	actor: string;
	readOnly: boolean;
	/** A line shown in the header, e.g. where the demo wrote its kubeconfig. */
	note: string;
	/** Every namespace is watched (-A): pools are keyed `namespace/pool` (see pool-key.ts). */
	allNamespaces: boolean;
	/**
	 * What a suggested command needs to run as printed: the namespace a bare ctpool picks
	 * (-n is written for any other) and the --context given. Absent: -n is always written.
	 */
	commandScope?: CommandScope;
}

/** What the runner must do once the app unmounts. */
export type ConsoleRequest =
	| { kind: 'quit' }
	/** Quit once the operation in flight has finished (a first q, Ctrl-C, SIGTERM or SIGHUP). */
	| { kind: 'finish' }
	/** Quit now, abandoning the operation in flight (it hands the member back to reconcile). */
	| { kind: 'abandon' }
	| { kind: 'console'; member: string };

/** The live reconcile loop. */
export interface LoopState {
	on: boolean;
	/** The pool it reconciles (null when off). */
	pool: string | null;
	running: boolean;
	intervalMs: number;
	lastRun: number | null;
}

/** The whole state. */
export interface ConsoleState {
	session: ConsoleSession;
	/** Which members' rows are on screen (written by the views, read by the watch). */
	onScreen: OnScreen;
	now: number;
	connection: ConnectionState;
	connectionByKind: Partial<Record<WatchKind, ConnectionState>>;
	/** The kinds whose first list has arrived: until then their figures are not known. */
	listed: Partial<Record<WatchKind, true>>;
	/** What the API said when it last refused the credentials (401/403) to an operation or a reconcile; null once one succeeds. */
	authProblem: string | null;
	/** Increases with every applied batch. */
	revision: number;
	/** The watched objects that do not read, one line each (left out of every pool; see object-problems.ts). */
	unreadable: readonly string[];
	/** The pools by key (the name, or `namespace/name` across namespaces), sorted. */
	poolNames: readonly string[];
	pools: Readonly<Record<string, PoolDerivation>>;
	/** What the console has seen of each pool over time (sparkline, exhaustion), by key. */
	history: Readonly<Record<string, PoolHistory>>;
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
	prompt: Prompt | null;
	showLog: boolean;
	log: readonly LogEntry[];
	loop: LoopState;
	busy: Busy | null;
	status: StatusMessage | null;
	/** Commands the identity lacks RBAC rights for, with the reason. */
	denied: Partial<Record<Command, string>>;
	details: DetailsEvents | null;
	/** The facts read for the hint of the member on the details screen (see member-hint.ts). */
	hintFacts: { member: string; facts: HintFacts } | null;
	request: ConsoleRequest | null;
	/** The members table's sort (kept while the console runs). */
	memberSort: SortOrder<MemberColumn>;
	/** The pools table's sort. */
	poolSort: SortOrder<PoolColumn>;
	/** The marked members of the open pool. */
	marks: ReadonlySet<string>;
	/** A member was marked on this pool's screen: the mark column stays while it lives. */
	markColumn: boolean;
	/** The first line shown of the details, help and log texts (-1: the end, following). */
	scroll: number;
	/** The container log of the log view (null when closed). */
	podLog: PodLogView | null;
	/** The screen the log view returns to. */
	logReturn: Screen;
	audit: AuditFeed;
	auditView: AuditView;
	/** The last plan of the console's own reconciles, per pool key (see trace-model.ts). */
	traces: Readonly<Record<string, PoolTrace>>;
	/** The trace screen: its pool key and the screen Esc returns to. */
	traceView: { pool: string; back: Screen };
	/** The text screen's text (set by the command that opens it). */
	textView?: TextView;
	/** The pool key whose members table marks the members its last plan touches (the trace was opened from it), or null. */
	traceMarks: string | null;
}

/** The most pools whose last plan the console keeps (the oldest plan gives way). */
export const TRACED_POOLS_MAX = 100;

/** The store's actions. */
export interface ConsoleActions {
	/** Applies one watch batch in one update; derives only the members it touched. */
	applyBatch(changes: readonly WatchChange[]): void;
	/** Records a refusal of the credentials (401/403), or clears it (null). */
	setAuthProblem(problem: string | null): void;
	/** Records the watch connection state. */
	setConnection(
		overall: ConnectionState,
		byKind?: Partial<Record<WatchKind, ConnectionState>>,
	): void;
	/** Advances the clock (ages, expiry, elapsed time). */
	tick(now: number): void;
	/** Appends an engine event (or a console note) to the activity log. */
	logEvent(e: EngineEvent): void;
	/**
	 * Shows a message in the status line. It goes on navigation and on the next action; one
	 * that is not an error also goes after STATUS_TTL_MS.
	 */
	setStatus(text: string, level?: StatusMessage['level']): void;
	/** Dismisses the status-line message. */
	clearStatus(): void;
	/** Starts or ends a long action. */
	setBusy(busy: { label: string; detail?: string } | null): void;
	/** Updates the progress of the long action. */
	setBusyDetail(detail: string): void;
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
	/** Opens or replaces the prompt (null closes it). */
	setPrompt(prompt: Prompt | null): void;
	/** Shows another group of keys in help (from its first line). */
	setHelpGroup(group: number): void;
	/** Sets the filter text. */
	setFilter(filter: string): void;
	/** Sets the find text of the pools screen (its first hit selected). */
	setFind(find: string): void;
	/** Shows or hides the activity log. */
	toggleLog(): void;
	/** Updates the live loop. */
	setLoop(loop: Partial<LoopState>): void;
	/** Records the RBAC denials. */
	setDenied(denied: Partial<Record<Command, string>>): void;
	/** Records the events of the member on the details screen. */
	setDetails(details: DetailsEvents | null): void;
	/** Records facts read for the hint of a member (a new member starts afresh; null clears). */
	setHintFacts(member: string | null, facts?: HintFacts): void;
	/** Asks the runner to quit or to hand the terminal to a console. */
	setRequest(request: ConsoleRequest | null): void;
	/** Replaces every audit line (a full list), or adds or removes one (a watch change). */
	auditChange(
		change: { reset: readonly AuditEntry[] } | { upsert: AuditEntry } | { delete: string },
	): void;
	/** Records the audit feed's state. */
	setAuditStatus(status: AuditFeed['status'], message?: string): void;
	/** Opens the audit screen on a scope. */
	openAudit(scope: AuditScope): void;
	/** Sets the audit screen's filter. */
	setAuditFilter(filter: string): void;
	/** Folds one event of a reconcile's story (onTrace) into the pool's last plan. */
	traceEvent(pool: string, e: TraceEvent): void;
	/** Opens the trace screen on a pool. */
	openTrace(pool: string): void;
	/** The members table stops marking what the last plan touches. */
	clearTraceMarks(): void;
	/** The objects of a member of the open pool, for the details screen. */
	memberObjects(member: string): ReturnType<ObjectIndex['memberObjects']>;
	/** Sorts the members or pools table (the current screen's) by a column, or reverses it. */
	setSort(sort: { column?: string; reverse?: boolean }): void;
	/** Marks or unmarks members (true marks). */
	setMarks(names: readonly string[], on: boolean): void;
	/** Unmarks every member. */
	clearMarks(): void;
	/** Scrolls the text of the details, help or log view to a line (-1: the end). */
	setScroll(line: number): void;
	/** Opens (or replaces) the log view's state; null closes it. */
	setPodLog(log: PodLogView | null): void;
	/** Appends lines to the log view (for the member it follows). */
	appendPodLog(member: string, lines: readonly string[]): void;
}

/** The store: state and actions. */
export type ConsoleStore = StoreApi<ConsoleState & ConsoleActions>;

/** Options of a new store. */
export interface ConsoleStoreOptions {
	session: Partial<ConsoleSession> & { namespace: string };
	/** The pool to open; none opens the pools screen. */
	pool?: string | null;
	now?: number;
	/** Largest number of log entries kept. */
	logLimit?: number;
	loopIntervalMs?: number;
	/** Where the views say which rows are on screen (the console watch's). */
	onScreen?: OnScreen;
}

let nextLogId = 1;

/** Creates a console store. */
export function createConsoleStore(opts: ConsoleStoreOptions): ConsoleStore {
	const auditByName = new Map<string, AuditEntry>();
	const logLimit = opts.logLimit ?? 500;
	const now0 = opts.now ?? Date.now();
	const session: ConsoleSession = {
		context: '',
		server: '',
		identity: '',
		actor: 'ctpool',
		readOnly: false,
		note: '',
		allNamespaces: false,
		...opts.session,
	};
	const index = new PoolIndex(session.allNamespaces);
	const objectProblems = new ObjectProblems();
	return createStore<ConsoleState & ConsoleActions>()((set, get) => ({
		session,
		onScreen: opts.onScreen ?? new OnScreen(),
		now: now0,
		connection: { phase: 'connecting', since: now0 },
		authProblem: null,
		connectionByKind: {},
		listed: {},
		revision: 0,
		unreadable: [],
		poolNames: [],
		pools: {},
		history: {},
		screen: opts.pool ? 'members' : 'pools',
		helpReturn: opts.pool ? 'members' : 'pools',
		helpGroup: 0,
		pool: opts.pool ?? null,
		selectedPool: opts.pool ?? null,
		selected: null,
		selectedIndex: 0,
		filter: '',
		find: '',
		findSelected: 0,
		prompt: null,
		showLog: false,
		log: [],
		loop: {
			on: false,
			pool: null,
			running: false,
			intervalMs: opts.loopIntervalMs ?? 15_000,
			lastRun: null,
		},
		busy: null,
		status: null,
		denied: {},
		details: null,
		hintFacts: null,
		request: null,
		memberSort: DEFAULT_MEMBER_SORT,
		poolSort: DEFAULT_POOL_SORT,
		marks: new Set<string>(),
		markColumn: false,
		scroll: 0,
		podLog: null,
		logReturn: 'members',
		audit: { status: 'off', message: '', entries: [], oldest: null },
		auditView: { scope: {}, back: 'pools', filter: '', selected: null, selectedIndex: 0 },
		traces: {},
		traceView: { pool: '', back: 'pools' },
		traceMarks: null,

		applyBatch(batch) {
			if (batch.length === 0) return;
			// the boundary: an object that does not read is left out and named, the rest goes on
			const { changes, problems } = readBatch(batch);
			const fresh = objectProblems.apply(changes, problems);
			for (const p of fresh)
				get().logEvent({
					time: get().now,
					actor: 'ctpool',
					pool: p.pool,
					action: 'watch',
					outcome: 'error',
					message: problemLine(p),
				});
			const dirty = index.apply(changes);
			const state = get();
			const pools: Record<string, PoolDerivation> = { ...state.pools };
			let poolSetChanged = false;
			for (const [key, members] of dirty) {
				const prev = pools[key];
				const { index: objects, pool } = index.resolve(key);
				if (!prev || members === 'all') {
					pools[key] = derivePool(objects, pool, state.now);
					if (!prev) poolSetChanged = true;
				} else pools[key] = rederiveMembers(objects, prev, members, state.now);
			}
			let poolNames = state.poolNames;
			if (poolSetChanged || changes.some((c) => c.kind === 'configmaps' || c.op !== 'upsert')) {
				const names = index.poolKeys();
				for (const name of Object.keys(pools)) if (!names.includes(name)) delete pools[name];
				if (names.join('\n') !== poolNames.join('\n')) poolNames = names;
			}
			const history = recordHistory(
				state.history,
				pools,
				state.now,
				knownFigures(state).counts,
				dirty.keys(),
			);
			// marks of members that are gone go with them
			let marks = state.marks;
			if (marks.size > 0 && state.pool) {
				const p = pools[state.pool];
				const kept = [...marks].filter((m) => p?.positions.has(m));
				if (kept.length !== marks.size) marks = new Set(kept);
			}
			const unreadable =
				objectProblems.size > 0 || state.unreadable.length > 0
					? objectProblems.lines()
					: state.unreadable;
			set({ pools, poolNames, history, marks, unreadable, revision: state.revision + 1 });
		},

		setAuthProblem(problem) {
			if (get().authProblem !== problem) set({ authProblem: problem });
		},

		setConnection(overall, byKind) {
			const state = get();
			const listed = state.listed;
			const now = WATCH_KINDS.filter(
				(k) => !listed[k] && (overall.phase === 'synced' || byKind?.[k]?.phase === 'synced'),
			);
			const nextListed =
				now.length > 0 ? { ...listed, ...Object.fromEntries(now.map((k) => [k, true])) } : listed;
			// the first sight of every pool is when its counts become known, not its next change
			const history =
				!knownFigures(state).counts && knownFigures({ listed: nextListed }).counts
					? recordHistory(state.history, state.pools, state.now, true)
					: state.history;
			set({
				connection: overall,
				...(byKind ? { connectionByKind: byKind } : {}),
				...(now.length > 0 ? { listed: nextListed } : {}),
				...(history !== state.history ? { history } : {}),
			});
		},

		tick(now) {
			const state = get();
			let pools: Record<string, PoolDerivation> | null = null;
			for (const [name, p] of Object.entries(state.pools)) {
				const expired = newlyExpired(p, now);
				if (expired.length === 0) continue;
				pools ??= { ...state.pools };
				pools[name] = rederiveMembers(index.resolve(name).index, p, expired, now);
			}
			const history = recordHistory(
				state.history,
				pools ?? state.pools,
				now,
				knownFigures(state).counts,
			);
			const status =
				state.status && state.status.level !== 'error' && now - state.status.time >= STATUS_TTL_MS
					? { status: null }
					: {};
			set({
				now,
				...(pools ? { pools } : {}),
				...(history !== state.history ? { history } : {}),
				...status,
			});
		},

		logEvent(e) {
			const entry: LogEntry = { ...e, message: boundedString(e.message), id: nextLogId++ };
			const log = get().log;
			set({
				log:
					log.length >= logLimit
						? [...log.slice(log.length - logLimit + 1), entry]
						: [...log, entry],
			});
		},

		setStatus(text, level = 'info') {
			set({ status: { text, level, time: get().now } });
		},

		clearStatus() {
			if (get().status) set({ status: null });
		},

		setBusy(busy) {
			set({
				busy: busy ? { label: busy.label, detail: busy.detail ?? '', startedAt: Date.now() } : null,
			});
		},

		setBusyDetail(detail) {
			const busy = get().busy;
			if (busy) set({ busy: { ...busy, detail } });
		},

		move(delta) {
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
		},

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
			set({
				pool,
				selectedPool: pool,
				screen: 'members',
				status: null,
				...(same
					? {}
					: { selected: null, selectedIndex: 0, filter: '', marks: new Set(), markColumn: false }),
			});
		},

		setScreen(screen) {
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
		},

		setPrompt(prompt) {
			set({ prompt });
		},

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
			set({ find, findSelected: 0 });
		},

		toggleLog() {
			set({ showLog: !get().showLog });
		},

		setLoop(loop) {
			set({ loop: { ...get().loop, ...loop } });
		},

		setDenied(denied) {
			set({ denied });
		},

		setDetails(details) {
			set({ details });
		},

		setHintFacts(member, facts = {}) {
			if (member === null) return set({ hintFacts: null });
			const had = get().hintFacts;
			set({
				hintFacts: {
					member,
					facts: had?.member === member ? { ...had.facts, ...facts } : { ...facts },
				},
			});
		},

		setRequest(request) {
			set({ request });
		},

		auditChange(change) {
			if ('reset' in change) auditByName.clear();
			const list = 'reset' in change ? change.reset : [];
			for (const e of list) auditByName.set(e.name, e);
			if ('upsert' in change) auditByName.set(change.upsert.name, change.upsert);
			if ('delete' in change && !auditByName.delete(change.delete)) return;
			const capped = capAudit(auditByName.values(), AUDIT_LINES_MAX);
			const entries = capped.kept;
			if (capped.dropped > 0) {
				const kept = new Set(entries.map((e) => e.name));
				for (const name of [...auditByName.keys()]) if (!kept.has(name)) auditByName.delete(name);
			}
			let oldest: number | null = null;
			for (const e of entries) if (oldest === null || e.time < oldest) oldest = e.time;
			const before: Partial<AuditFeed> = 'reset' in change ? {} : get().audit;
			set({
				audit: {
					...get().audit,
					entries,
					oldest,
					dropped: (before.dropped ?? 0) + capped.dropped,
					droppedClamped: (before.droppedClamped ?? 0) + capped.droppedClamped,
				},
			});
		},

		setAuditStatus(status, message = '') {
			const a = get().audit;
			if (a.status !== status || a.message !== message) set({ audit: { ...a, status, message } });
		},

		openAudit(scope) {
			const state = get();
			set({
				screen: 'audit',
				status: null,
				auditView: {
					scope,
					back:
						state.screen === 'audit' || state.screen === 'help'
							? state.auditView.back
							: state.screen,
					filter: '',
					selected: null,
					selectedIndex: 0,
				},
			});
		},

		traceEvent(pool, e) {
			const traces = get().traces;
			const next = applyTrace(traces[pool], e);
			if (!next || next === traces[pool]) return;
			const kept = Object.entries(traces).filter(([k]) => k !== pool);
			kept.sort((a, b) => a[1].planned - b[1].planned);
			const room = kept.slice(Math.max(0, kept.length - (TRACED_POOLS_MAX - 1)));
			set({ traces: { ...Object.fromEntries(room), [pool]: next } });
		},

		clearTraceMarks() {
			if (get().traceMarks !== null) set({ traceMarks: null });
		},

		openTrace(pool) {
			const state = get();
			const back =
				state.screen === 'trace' || state.screen === 'help' ? state.traceView.back : state.screen;
			set({
				screen: 'trace',
				status: null,
				traceView: { pool, back },
				traceMarks: back === 'members' ? pool : state.traceMarks,
			});
		},

		setAuditFilter(filter) {
			set({ auditView: { ...get().auditView, filter, selected: null, selectedIndex: 0 } });
		},

		memberObjects(member) {
			const key = get().pool;
			return (key ? index.resolve(key).index : index.resolve('').index).memberObjects(member);
		},

		setSort(sort) {
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
		},

		setMarks(names, on) {
			const marks = new Set(get().marks);
			for (const n of names) {
				if (on) marks.add(n);
				else marks.delete(n);
			}
			set({ marks, ...(on && names.length > 0 ? { markColumn: true } : {}) });
		},

		clearMarks() {
			if (get().marks.size > 0) set({ marks: new Set() });
		},

		setScroll(line) {
			set({ scroll: line });
		},

		setPodLog(log) {
			set({ podLog: log });
		},

		appendPodLog(member, lines) {
			const log = get().podLog;
			if (!log || log.member !== member || lines.length === 0) return;
			const all = [...log.lines, ...lines];
			const over = Math.max(0, all.length - LOG_VIEW_LINES);
			set({
				podLog: {
					...log,
					lines: over > 0 ? all.slice(over) : all,
					dropped: log.dropped + over,
				},
			});
		},
	}));
}

/** Which figures are known: the definition's (configmaps listed) and the member counts (pods, PVCs and Leases listed). */
export interface KnownFigures {
	spec: boolean;
	counts: boolean;
}

/** Which figures are known yet (while connecting, some are not). */
export function knownFigures(state: Pick<ConsoleState, 'listed'>): KnownFigures {
	const l = state.listed;
	return {
		spec: Boolean(l.configmaps),
		counts: Boolean(l.pods && l.persistentvolumeclaims && l.leases),
	};
}

/** The pool open on the members screen, derived. */
export function currentPool(state: ConsoleState): PoolDerivation | null {
	return state.pool ? (state.pools[state.pool] ?? null) : null;
}

const NO_ROWS: readonly MemberRow[] = [];

let lastVisible: {
	rows: readonly MemberRow[];
	filter: string;
	sort: SortOrder<MemberColumn>;
	out: readonly MemberRow[];
} | null = null;

/** The rows the filter lets through, in the sort's order (the last answer is kept). */
export function filteredSorted(
	rows: readonly MemberRow[],
	filter: string,
	sort: SortOrder<MemberColumn>,
): readonly MemberRow[] {
	const l = lastVisible;
	if (l && l.rows === rows && l.filter === filter && l.sort === sort) return l.out;
	const out = sortRows(filterRows(rows, filter), sort);
	lastVisible = { rows, filter, sort, out };
	return out;
}

/** The member rows of the open pool that the filter lets through, in the sort's order. */
export function visibleRows(state: ConsoleState): readonly MemberRow[] {
	const p = currentPool(state);
	return p ? filteredSorted(p.rows, state.filter, state.memberSort) : NO_ROWS;
}

let lastPools: {
	names: readonly string[];
	pools: ConsoleState['pools'];
	sort: SortOrder<PoolColumn>;
	refused: ReadonlyMap<string, number> | null | undefined;
	out: readonly string[];
} | null = null;

/** The pool names in the pools table's sort order (the last answer is kept). */
export function sortedPoolNames(
	state: Pick<ConsoleState, 'poolNames' | 'pools' | 'poolSort' | 'audit' | 'now' | 'session'>,
): readonly string[] {
	const refused = state.poolSort.column === 'refused' ? refusedByPool(state) : undefined;
	const l = lastPools;
	if (
		l &&
		l.names === state.poolNames &&
		l.pools === state.pools &&
		l.sort === state.poolSort &&
		l.refused === refused
	)
		return l.out;
	const out = sortPoolNames(state.poolNames, state.pools, state.poolSort, refused);
	lastPools = { names: state.poolNames, pools: state.pools, sort: state.poolSort, refused, out };
	return out;
}

/**
 * Where the selection is among the visible rows: its member when still there, else the row
 * now at its old position (so the selection never jumps to the top when its member goes).
 */
export function selectedPosition(
	state: Pick<ConsoleState, 'selected' | 'selectedIndex'>,
	rows: readonly MemberRow[],
): number {
	if (rows.length === 0) return 0;
	if (state.selected) {
		const i = rows.findIndex((r) => r.name === state.selected);
		if (i >= 0) return i;
	}
	return Math.max(0, Math.min(rows.length - 1, state.selectedIndex));
}

/** The selected member row, or null. */
export function selectedRow(state: ConsoleState): MemberRow | null {
	const rows = visibleRows(state);
	return rows[selectedPosition(state, rows)] ?? null;
}

/** Where the audit selection is among the shown lines (its line, else its old position). */
export function selectedAuditPosition(
	view: Pick<AuditView, 'selected' | 'selectedIndex'>,
	lines: readonly AuditEntry[],
): number {
	if (lines.length === 0) return 0;
	if (view.selected) {
		const i = lines.findIndex((l) => l.name === view.selected);
		if (i >= 0) return i;
	}
	return Math.max(0, Math.min(lines.length - 1, view.selectedIndex));
}
