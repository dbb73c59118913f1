/** What every action module of the console store works with: the store's own set and get, and its cluster index. */

import type { StoreApi } from 'zustand/vanilla';
import type { AuditEntry } from '../../pool/audit.js';
import type { ObjectProblems } from '../model/object-problems.js';
import type { PoolIndex } from '../model/pool-index.js';
import type { ConsoleActions, ConsoleState } from './store.js';

/** The state and actions together, as the store holds them. */
export type StoreState = ConsoleState & ConsoleActions;

/** One store's context: its set and get, and what it keeps beside its state (never shared between stores). */
export interface StoreContext {
	set: StoreApi<StoreState>['setState'];
	get: StoreApi<StoreState>['getState'];
	/** The watched objects by pool (applyBatch feeds it). */
	index: PoolIndex;
	/** The watched objects that do not read. */
	objectProblems: ObjectProblems;
	/** Every audit line seen, by Event name. */
	auditByName: Map<string, AuditEntry>;
	/** Largest number of activity log entries kept. */
	logLimit: number;
	/** The id of the next activity log entry. */
	nextLogId: number;
}
