/**
 * The feeds' slice of the console state: what flows in while the console runs (the activity
 * log, the audit feed, a member's Events and hint inputs, the pod log, the reconciles' traces).
 */

import type { EngineEvent } from '../../engine/context.js';
import type { EventLine } from '../../engine/member-events.js';
import type { AuditEntry } from '../../pool/audit.js';
import type { HintInputs } from '../model/member-hint.js';
import type { PoolTrace } from '../model/trace-model.js';

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

/** The most audit lines the console keeps (lines with forged times, then the oldest, give way). */
export const AUDIT_LINES_MAX = 5000;

/** One line of the activity log. */
export interface LogEntry extends EngineEvent {
	id: number;
}

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

/** The most pools whose last plan the console keeps (the oldest plan gives way). */
export const TRACED_POOLS_MAX = 100;

/** The feeds' state. */
export interface FeedsState {
	showLog: boolean;
	log: readonly LogEntry[];
	details: DetailsEvents | null;
	/** The inputs read for the hint of the member on the details screen (see member-hint.ts). */
	hintInputs: { member: string; inputs: HintInputs } | null;
	/** The container log of the log view (null when closed). */
	podLog: PodLogView | null;
	audit: AuditFeed;
	/** The last plan of the console's own reconciles, per pool key (see trace-model.ts). */
	traces: Readonly<Record<string, PoolTrace>>;
}

/** Every feed empty. */
export function initialFeedsState(): FeedsState {
	return {
		showLog: false,
		log: [],
		details: null,
		hintInputs: null,
		podLog: null,
		audit: { status: 'off', message: '', entries: [], oldest: null },
		traces: {},
	};
}
