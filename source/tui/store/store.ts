/**
 * The console's state: a vanilla zustand store that lives outside React, so the app can
 * unmount for a console session and mount again with nothing lost. It is fed only by the
 * watches (applyBatch, setConnection), the clock (tick) and the user's actions.
 *
 * The state is split by concern, each slice in its own file with its actions apart: the
 * cluster index (cluster-*.ts), the pools derived from it (pools-state.ts), navigation
 * (navigation-*.ts), prompts and marks (prompts-*.ts), the feeds (feeds-*.ts), the loop
 * (loop-*.ts), the narrated demo's narration (narration-*.ts) and the session (session-*.ts). createConsoleStore composes them; the
 * derived values are in selectors.ts. Everything is re-exported here.
 */

import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AuditEntry } from '../../pool/audit.js';
import { ObjectProblems } from '../model/object-problems.js';
import { PoolIndex } from '../model/pool-index.js';
import { OnScreen } from '../session/on-screen.js';
import { type ClusterActions, clusterActions } from './cluster-actions.js';
import { type ClusterState, initialClusterState } from './cluster-state.js';
import type { StoreContext, StoreState } from './context.js';
import { type FeedsActions, feedsActions } from './feeds-actions.js';
import { type FeedsState, initialFeedsState } from './feeds-state.js';
import { type LoopActions, loopActions } from './loop-actions.js';
import { initialLoopState, type LoopSlice } from './loop-state.js';
import { type NarrationActions, narrationActions } from './narration-actions.js';
import { initialNarrationState, type NarrationSlice } from './narration-state.js';
import { type NavigationActions, navigationActions } from './navigation-actions.js';
import { initialNavigationState, type NavigationState } from './navigation-state.js';
import { initialPoolsState, type PoolsState } from './pools-state.js';
import { type PromptsActions, promptsActions } from './prompts-actions.js';
import { initialPromptsState, type PromptsState } from './prompts-state.js';
import { type SessionActions, sessionActions } from './session-actions.js';
import { type ConsoleSession, initialSessionState, type SessionState } from './session-state.js';

export type { ClusterActions } from './cluster-actions.js';
export type { ClusterState } from './cluster-state.js';
export type { FeedsActions } from './feeds-actions.js';
export {
	AUDIT_LINES_MAX,
	type AuditFeed,
	type DetailsEvents,
	type EventLine,
	type FeedsState,
	LOG_VIEW_LINES,
	type LogEntry,
	type PodLogView,
	TRACED_POOLS_MAX,
} from './feeds-state.js';
export type { LoopActions } from './loop-actions.js';
export type { LoopSlice, LoopState } from './loop-state.js';
export type { NarrationActions } from './narration-actions.js';
export {
	NARRATION_TOLD_MAX,
	type NarrationControl,
	type NarrationSlice,
	type NarrationView,
} from './narration-state.js';
export type { NavigationActions } from './navigation-actions.js';
export type { AuditScope, AuditView, NavigationState, Screen } from './navigation-state.js';
export type { PoolsState } from './pools-state.js';
export type { PromptsActions } from './prompts-actions.js';
export {
	type BulkAction,
	type BulkMember,
	bulkVerb,
	type Prompt,
	type PromptsState,
} from './prompts-state.js';
export {
	currentPool,
	filteredSorted,
	type ListedKinds,
	listedKinds,
	selectedAuditPosition,
	selectedPosition,
	selectedRow,
	sortedPoolNames,
	visibleRows,
} from './selectors.js';
export type { SessionActions } from './session-actions.js';
export {
	type Busy,
	type ConsoleRequest,
	type ConsoleSession,
	type SessionState,
	STATUS_TTL_MS,
	type StatusMessage,
} from './session-state.js';

/** The whole state: every slice. */
export interface ConsoleState
	extends SessionState,
		ClusterState,
		PoolsState,
		NavigationState,
		PromptsState,
		FeedsState,
		LoopSlice,
		NarrationSlice {}

/** The store's actions: every slice's. */
export interface ConsoleActions
	extends SessionActions,
		ClusterActions,
		NavigationActions,
		PromptsActions,
		FeedsActions,
		LoopActions,
		NarrationActions {}

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
	/** Where the store says which rows are on screen (the console watch's). */
	onScreen?: OnScreen;
}

/** Creates a console store: every slice's first state and its actions, over one context. */
export function createConsoleStore(opts: ConsoleStoreOptions): ConsoleStore {
	const now = opts.now ?? Date.now();
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
	return createStore<StoreState>()((set, get) => {
		const ctx: StoreContext = {
			set,
			get,
			index: new PoolIndex(session.allNamespaces),
			objectProblems: new ObjectProblems(),
			auditByName: new Map<string, AuditEntry>(),
			logLimit: opts.logLimit ?? 500,
			nextLogId: 1,
		};
		return {
			...initialSessionState(session),
			...initialClusterState(now),
			...initialPoolsState(),
			...initialNavigationState(opts.pool ?? null, opts.onScreen ?? new OnScreen()),
			...initialPromptsState(),
			...initialFeedsState(),
			...initialLoopState(opts.loopIntervalMs ?? 15_000),
			...initialNarrationState(),
			...sessionActions(ctx),
			...clusterActions(ctx),
			...navigationActions(ctx),
			...promptsActions(ctx),
			...feedsActions(ctx),
			...loopActions(ctx),
			...narrationActions(ctx),
		};
	});
}
