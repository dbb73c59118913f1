/**
 * How `ctpool reconcile -v` / `--plan` / `--dry-run` print a reconcile's story: the plan, then
 * each step as it happens with its time since the plan; `-o json` writes the same events as
 * JSON lines, one object per event (the shape is TraceEvent, documented in README).
 */

import type { TraceEvent, TraceSink } from '../engine/reconcile-plan.js';
import { sanitize, sanitizeDeep } from '../text/sanitize.js';
import { type CommandIo, println } from './io.js';

/** The output of a traced reconcile: text lines, or JSON lines. */
export type TraceFormat = 'text' | 'json';

/** Seconds with two decimals: `1.25 s`. */
function seconds(ms: number): string {
	return `${(Math.max(0, ms) / 1000).toFixed(2)} s`;
}

/** The lines of a plan: each step with its members and why, then what is left alone and why. */
export function planLines(e: Extract<TraceEvent, { type: 'plan' }>, prefix = ''): string[] {
	const out = [
		`${prefix}plan for pool ${sanitize(e.pool)}${e.dryRun ? ' (dry run: nothing is changed)' : ''}:`,
	];
	const steps = e.steps.filter((s) => s.members.length > 0);
	if (steps.length === 0) out.push(`${prefix}  no step: every member is in line`);
	for (const s of steps)
		for (const m of s.members)
			out.push(`${prefix}  ${s.kind.padEnd(8)} ${sanitize(m.member)}: ${sanitize(m.reason)}`);
	for (const l of e.leftAlone) {
		const until = l.until !== undefined ? ` until ${new Date(l.until).toISOString()}` : '';
		out.push(`${prefix}  leave    ${sanitize(l.member)}: ${sanitize(l.reason)}${until}`);
	}
	return out;
}

/** The line of one event after the plan, with its time since the plan (`+1.20 s`). */
export function stepLine(e: Exclude<TraceEvent, { type: 'plan' }>, since: number): string {
	const at = `+${seconds(e.time - since)}`;
	switch (e.type) {
		case 'step-start':
			return `${at} ${sanitize(e.member)} ${e.step}: started`;
		case 'step-progress':
			return `${at} ${sanitize(e.member)} ${e.step}: ${sanitize(e.detail)}`;
		case 'step-end':
			return `${at} ${sanitize(e.member)} ${e.step}: ${e.result} in ${seconds(e.ms)}${e.error ? ` (${sanitize(e.error)})` : ''}`;
		case 'done':
			return e.dryRun
				? `${at} dry run of pool ${sanitize(e.pool)} done in ${seconds(e.ms)}: nothing changed${e.ok ? '' : `, ${e.errors.length} problem${e.errors.length === 1 ? '' : 's'}`}`
				: `${at} reconcile of pool ${sanitize(e.pool)} done in ${seconds(e.ms)}: ${e.done} done, ${e.failed} failed, ${e.skipped} skipped; status ${e.statusWritten ? 'recorded' : 'unchanged'}`;
	}
}

/**
 * A sink printing a reconcile's story on stdout as it happens: text (the plan, then a line
 * per event) or JSON lines (every string sanitised, one object per line, with the pool's
 * namespace).
 */
export function traceSink(
	io: CommandIo,
	format: TraceFormat,
	namespace: string,
	prefix = '',
): TraceSink {
	let since = 0;
	return (e) => {
		if (format === 'json') {
			io.stdout.write(`${JSON.stringify(sanitizeDeep({ ...e, namespace }))}\n`);
			return;
		}
		if (e.type === 'plan') {
			since = e.time;
			for (const line of planLines(e, prefix)) println(io.stdout, line);
		} else println(io.stdout, `${prefix}${stepLine(e, since)}`);
	};
}
