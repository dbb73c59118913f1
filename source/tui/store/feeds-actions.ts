/** The feeds' actions: the activity log, the audit feed, a member's Events and hint inputs, the pod log, the traces. */

import type { EngineEvent } from '../../engine/context.js';
import type { TraceEvent } from '../../engine/reconcile-plan.js';
import { type AuditEntry, capAudit } from '../../pool/audit.js';
import { boundedString } from '../model/bounded-object.js';
import type { HintInputs } from '../model/member-hint.js';
import { applyTrace } from '../model/trace-model.js';
import type { StoreContext } from './context.js';
import {
	AUDIT_LINES_MAX,
	type AuditFeed,
	type DetailsEvents,
	LOG_VIEW_LINES,
	type LogEntry,
	type PodLogView,
	TRACED_POOLS_MAX,
} from './feeds-state.js';

/** The feeds' actions. */
export interface FeedsActions {
	/** Appends an engine event (or a console note) to the activity log. */
	logEvent(e: EngineEvent): void;
	/** Shows or hides the activity log. */
	toggleLog(): void;
	/** Records the events of the member on the details screen. */
	setDetails(details: DetailsEvents | null): void;
	/** Records inputs read for the hint of a member (a new member starts afresh; null clears). */
	setHintInputs(member: string | null, inputs?: HintInputs): void;
	/** Replaces every audit line (a full list), or adds or removes one (a watch change). */
	auditChange(
		change: { reset: readonly AuditEntry[] } | { upsert: AuditEntry } | { delete: string },
	): void;
	/** Records the audit feed's state. */
	setAuditStatus(status: AuditFeed['status'], message?: string): void;
	/** Folds one event of a reconcile's story (onTrace) into the pool's last plan. */
	traceEvent(pool: string, e: TraceEvent): void;
	/** Opens (or replaces) the log view's state; null closes it. */
	setPodLog(log: PodLogView | null): void;
	/** Appends lines to the log view (for the member it follows). */
	appendPodLog(member: string, lines: readonly string[]): void;
}

/** The feeds' actions over a store. */
export function feedsActions(ctx: StoreContext): FeedsActions {
	const { set, get } = ctx;
	return {
		logEvent(e) {
			const entry: LogEntry = { ...e, message: boundedString(e.message), id: ctx.nextLogId++ };
			const log = get().log;
			const limit = ctx.logLimit;
			set({
				log: log.length >= limit ? [...log.slice(log.length - limit + 1), entry] : [...log, entry],
			});
		},
		toggleLog() {
			set({ showLog: !get().showLog });
		},
		setDetails(details) {
			set({ details });
		},
		setHintInputs(member, inputs = {}) {
			if (member === null) return set({ hintInputs: null });
			const had = get().hintInputs;
			set({
				hintInputs: {
					member,
					inputs: had?.member === member ? { ...had.inputs, ...inputs } : { ...inputs },
				},
			});
		},
		auditChange: (change) => auditChange(ctx, change),
		setAuditStatus(status, message = '') {
			const a = get().audit;
			if (a.status !== status || a.message !== message) set({ audit: { ...a, status, message } });
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
	};
}

/** Folds a full list or one watch change of the audit Events into the feed (bounded). */
function auditChange(
	{ set, get, auditByName }: StoreContext,
	change: Parameters<FeedsActions['auditChange']>[0],
): void {
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
}
