/**
 * The trace screen's text (issue 26): what it sees directly and what through Events, the
 * pool's last plan of this console's own reconciles with each step's state, the members left
 * alone and why, the next retry, the events as `ctpool reconcile -v` prints them; then the
 * passes of other reconcilers (the CLI, the in-cluster controller, another console) as far
 * as their Events tell, newest first, each saying what Events cannot tell. Pure, for the
 * view and tests.
 */

import type { SeenPass } from '../../engine/audit-passes.js';
import { clockTime, formatAge } from '../../text/age.js';
import { sanitize } from '../../text/sanitize.js';
import type { PoolTrace, TracedStep } from '../model/trace-model.js';
import type { AuditFeed, LoopState } from '../store/store.js';

/** One line of the trace screen and its tone. */
export interface TraceLine {
	text: string;
	tone: 'plain' | 'heading' | 'muted' | 'ok' | 'warn' | 'error' | 'running';
}

/** What the trace screen is made from. */
export interface TraceInput {
	pool: string;
	trace: PoolTrace | undefined;
	loop: LoopState;
	now: number;
	/** Other reconcilers' passes rebuilt from the audit Events, newest first. */
	others?: readonly SeenPass[];
	/** The audit feed's state (whether Events can be read at all). */
	audit?: AuditFeed['status'];
}

/** What the screen sees directly and what only through Events, said plainly. */
export const SEEN_DIRECTLY =
	"Seen directly: this console's own reconciles (r, the a loop). The CLI's and the in-cluster controller's are seen through their Events, below.";

/** What Events cannot tell of another reconciler's pass, said under each one. */
export const EVENTS_CANNOT_TELL =
	'Events do not tell: the members it left alone and why, how long each step took, whether it wrote the status.';

/** `in 30s` or `12s ago`. */
export function relative(at: number, now: number): string {
	return at >= now ? `in ${formatAge(at - now)}` : `${formatAge(now - at)} ago`;
}

function stepState(s: TracedStep): TraceLine {
	const head = `  ${s.state.padEnd(8)}${s.kind.padEnd(9)}${sanitize(s.member)}: ${sanitize(s.reason)}`;
	const tone = {
		pending: 'muted',
		running: 'running',
		done: 'ok',
		failed: 'error',
		skipped: 'warn',
	} as const;
	return { text: head, tone: tone[s.state] };
}

function stepDetail(s: TracedStep): TraceLine | null {
	const took = s.ms !== null ? `${(s.ms / 1000).toFixed(2)} s` : '';
	if (s.state === 'running' && s.progress)
		return { text: `      … ${s.progress}`, tone: 'running' };
	if (s.state === 'failed')
		return { text: `      failed after ${took}: ${s.error}`, tone: 'error' };
	if (s.state === 'done' || s.state === 'skipped')
		return { text: `      ${s.state} in ${took}${s.error ? ` (${s.error})` : ''}`, tone: 'muted' };
	return null;
}

function summary(t: PoolTrace, now: number): TraceLine {
	const made = `plan made ${clockTime(t.planned)} (${relative(t.planned, now)})${t.dryRun ? ', dry run' : ''}`;
	const d = t.done;
	if (!d) return { text: `${made} · running`, tone: 'running' };
	return {
		text: `${made} · finished in ${(d.ms / 1000).toFixed(2)} s: ${d.done} done, ${d.failed} failed, ${d.skipped} skipped`,
		tone: d.ok ? 'ok' : 'error',
	};
}

/** When a retry is due: the earliest backoff among the members left alone, and the loop's next pass. */
function retryLines(input: TraceInput): TraceLine[] {
	const { trace, loop, now } = input;
	const out: TraceLine[] = [];
	const until = (trace?.leftAlone ?? [])
		.filter((l) => l.until !== undefined && l.until > now)
		.sort((a, b) => (a.until ?? 0) - (b.until ?? 0))[0];
	if (until?.until !== undefined)
		out.push({
			text: `next retry: ${sanitize(until.member)} at ${clockTime(until.until)} (${relative(until.until, now)})`,
			tone: 'warn',
		});
	if (loop.on && loop.pool === input.pool) {
		const next = loop.lastRun !== null ? loop.lastRun + loop.intervalMs : null;
		out.push({
			text: loop.running
				? 'live loop: on, reconciling now'
				: `live loop: on, next pass ${next !== null ? `at ${clockTime(next)} (${relative(next, now)}) or ` : ''}after a change`,
			tone: 'muted',
		});
	} else out.push({ text: 'live loop: off (a turns it on)', tone: 'muted' });
	return out;
}

/** The lines of one pass of another reconciler, as its Events tell it. */
function seenPassLines(p: SeenPass, now: number): TraceLine[] {
	const who = `${sanitize(p.reconciler.actor) || 'someone'}${p.reconciler.instance ? ` on ${sanitize(p.reconciler.instance)}` : ''}`;
	const id = p.pass ? `pass ${sanitize(p.pass)}` : 'no pass id (older Events, grouped by time)';
	const out: TraceLine[] = [
		{
			text: `${who} · ${id} · ${clockTime(p.start)}–${clockTime(p.end)} (${relative(p.end, now)}) · seen through Events`,
			tone: 'plain',
		},
	];
	if (p.suspect) out.push({ text: `  ⚠ ${sanitize(p.suspect)}`, tone: 'warn' });
	const reasons = new Map<string, string>();
	for (const e of p.events)
		if (e.type === 'plan')
			for (const st of e.steps)
				for (const m of st.members) reasons.set(`${st.kind} ${m.member}`, m.reason);
	for (const e of p.events) {
		if (e.type === 'step-end') {
			const why = reasons.get(`${e.step} ${e.member}`) ?? '';
			out.push({
				text: `  ${e.result.padEnd(8)}${e.step.padEnd(9)}${sanitize(e.member)}${why ? `: ${sanitize(why)}` : ''}`,
				tone: e.result === 'failed' ? 'error' : 'ok',
			});
		} else if (e.type === 'done')
			out.push({
				text: `  ${e.done} done, ${e.failed} failed${e.errors.length > 0 && e.failed === 0 ? `: ${sanitize(e.errors[0])}` : ''}`,
				tone: e.ok ? 'muted' : 'error',
			});
	}
	out.push({ text: `  ${EVENTS_CANNOT_TELL}`, tone: 'muted' });
	return out;
}

/** The other reconcilers' passes, newest first, or why none are shown. */
function othersLines(input: TraceInput): TraceLine[] {
	const out: TraceLine[] = [
		{ text: 'Other reconcilers, seen through Events (newest first)', tone: 'heading' },
	];
	const others = input.others ?? [];
	if (others.length === 0) {
		const why =
			input.audit === 'denied'
				? "none shown: Events cannot be read with these rights (ctpool's Role may not grant it)"
				: input.audit === 'off' || input.audit === 'loading'
					? 'reading the Events…'
					: input.audit === 'error'
						? 'none shown: the Events cannot be read now (the feed retries)'
						: `none: no other reconciler's act on pool ${sanitize(input.pool)} in the Events kept`;
		out.push({ text: `  ${why}`, tone: 'muted' });
	}
	for (const p of others) out.push(...seenPassLines(p, input.now));
	return out;
}

/** Every line of the trace screen, unwrapped. */
export function traceLines(input: TraceInput): TraceLine[] {
	return [...ownLines(input), ...othersLines(input)];
}

/** The lines of this console's own last plan (seen directly). */
function ownLines(input: TraceInput): TraceLine[] {
	const { trace, now } = input;
	const out: TraceLine[] = [{ text: SEEN_DIRECTLY, tone: 'muted' }];
	if (!trace) {
		out.push({
			text: `No plan yet: this console has not reconciled pool ${sanitize(input.pool)}. Esc, then r reconciles now or a turns the live loop on.`,
			tone: 'plain',
		});
		return [...out, ...retryLines(input)];
	}
	out.push(summary(trace, now), ...retryLines(input));
	out.push({ text: 'Steps', tone: 'heading' });
	if (trace.steps.length === 0)
		out.push({ text: '  none: every member is in line', tone: 'muted' });
	for (const s of trace.steps) {
		out.push(stepState(s));
		const detail = stepDetail(s);
		if (detail) out.push(detail);
	}
	out.push({ text: 'Left alone', tone: 'heading' });
	if (trace.leftAlone.length === 0) out.push({ text: '  none', tone: 'muted' });
	for (const l of trace.leftAlone)
		out.push({
			text: `  ${sanitize(l.member)}: ${sanitize(l.reason)}${l.until !== undefined ? ` (until ${relative(l.until, now)})` : ''}`,
			tone: 'plain',
		});
	out.push({
		text: `Events${trace.droppedLines > 0 ? ` (${trace.droppedLines} earlier left out)` : ''}`,
		tone: 'heading',
	});
	for (const line of trace.lines) out.push({ text: `  ${line}`, tone: 'muted' });
	return out;
}
