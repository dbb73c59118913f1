/**
 * The console's copy of a reconcile's story (issue 26): the last plan of its own reconcile
 * loop per pool, with each step's state folded from the engine's trace events (onTrace), and
 * the text lines of the events (bounded); the ids of its own passes, so that other
 * reconcilers' passes rebuilt from the audit Events (otherReconcilerPasses) leave its own
 * out. Pure: the store applies events through applyTrace.
 */

import { stepLine } from '../../commands/reconcile-trace.js';
import { otherPasses, type SeenPass } from '../../engine/audit-passes.js';
import type { ReconcileStep } from '../../engine/member-step.js';
import type { LeftAlone, TraceEvent } from '../../engine/reconcile-plan.js';
import type { AuditEntry } from '../../pool/audit.js';
import { bounded } from '../../text/sanitize.js';
import { splitPoolKey } from './pool-index.js';

/** The most event lines kept per pool (the oldest give way). */
export const TRACE_LINES_MAX = 200;
/** The most pass ids of its own the console keeps per pool (the oldest give way). */
export const OWN_PASSES_MAX = 200;
/** The most passes of other reconcilers the trace screen shows. */
export const OTHER_PASSES_MAX = 10;

/** Where a planned step is. */
export type StepState = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

/** One planned step on one member, as it stands. */
export interface TracedStep {
	kind: ReconcileStep;
	member: string;
	reason: string;
	state: StepState;
	/** The latest progress line ('' before any). */
	progress: string;
	/** How long it took, once ended. */
	ms: number | null;
	error: string;
}

/** The last plan of a pool and how far it got. */
export interface PoolTrace {
	pool: string;
	/** When the plan was made (ms). */
	planned: number;
	dryRun: boolean;
	steps: readonly TracedStep[];
	leftAlone: readonly LeftAlone[];
	/** The event lines after the plan, oldest first (at most TRACE_LINES_MAX). */
	lines: readonly string[];
	/** Lines left out to keep TRACE_LINES_MAX. */
	droppedLines: number;
	/** The end of the reconcile: null while it runs. */
	done: Extract<TraceEvent, { type: 'done' }> | null;
	/** The ids of this console's passes over the pool, oldest first (at most OWN_PASSES_MAX). */
	ownPasses: readonly string[];
}

/** The trace after one event; an event before any plan (or of another reconcile's plan) is dropped. */
export function applyTrace(prev: PoolTrace | undefined, e: TraceEvent): PoolTrace | undefined {
	if (e.type === 'plan')
		return {
			pool: e.pool,
			planned: e.time,
			dryRun: e.dryRun,
			steps: e.steps.flatMap((s) =>
				s.members.map((m) => ({
					kind: s.kind,
					member: m.member,
					reason: m.reason,
					state: 'pending' as const,
					progress: '',
					ms: null,
					error: '',
				})),
			),
			leftAlone: e.leftAlone,
			lines: [],
			droppedLines: 0,
			done: null,
			ownPasses: e.pass
				? [...(prev?.ownPasses ?? []), e.pass].slice(-OWN_PASSES_MAX)
				: (prev?.ownPasses ?? []),
		};
	if (!prev || prev.done) return prev;
	const next = withLine(prev, stepLine(e, prev.planned));
	if (e.type === 'done') return { ...next, done: e };
	return { ...next, steps: prev.steps.map((s) => stepAfter(s, e)) };
}

function withLine(t: PoolTrace, line: string): PoolTrace {
	const lines = [...t.lines, bounded(line, 500)];
	const over = Math.max(0, lines.length - TRACE_LINES_MAX);
	return { ...t, lines: lines.slice(over), droppedLines: t.droppedLines + over };
}

function stepAfter(s: TracedStep, e: Exclude<TraceEvent, { type: 'plan' | 'done' }>): TracedStep {
	if (e.member !== s.member || e.step !== s.kind) return s;
	switch (e.type) {
		case 'step-start':
			return { ...s, state: 'running' };
		case 'step-progress':
			return { ...s, state: 'running', progress: bounded(e.detail, 300) };
		case 'step-end':
			return {
				...s,
				state: e.result,
				ms: e.ms,
				error: e.error ? bounded(e.error, 300) : '',
			};
	}
}

/** The members a plan touches (its steps), for the members table's marker. */
export function touchedMembers(t: PoolTrace | undefined): ReadonlySet<string> {
	return new Set(t?.steps.map((s) => s.member) ?? []);
}

/**
 * The passes of other reconcilers of a pool (the CLI, the in-cluster controller, another
 * console), newest first, as far as their audit Events tell (see engine/audit-passes.ts):
 * the Events of the pool's namespace (its key's, with -A), less this console's own passes.
 */
export function otherReconcilerPasses(
	entries: readonly AuditEntry[],
	poolKey: string,
	ownPasses: readonly string[] = [],
): SeenPass[] {
	const { namespace, pool } = splitPoolKey(poolKey);
	const mine = namespace === null ? entries : entries.filter((e) => e.namespace === namespace);
	return otherPasses(mine, pool, {
		ownPasses: new Set(ownPasses),
		maxPasses: OTHER_PASSES_MAX,
	});
}
