/**
 * Other reconcilers' passes, as far as their Events tell. The console traces its own
 * reconciles directly (onTrace); the CLI's `ctpool reconcile` and the in-cluster controller
 * leave only the audit Events of their acts. This rebuilds, from a pool's audit lines
 * (already parsed and bounded: pool/audit.ts), the recent passes of each other reconciler,
 * in the trace stream's own event types, each marked as seen through Events.
 *
 * An Event of a pass names the pass (its audit record's `pass`, written since this build):
 * its acts are grouped by it. An older Event has none: its acts are grouped by reconciler
 * (actor and reporting instance) and time, a pass ending at a quiet gap or when a member
 * comes round again. What Events cannot tell is left out, not made up: the members a pass
 * left alone (none is listed), the duration of each step (0), whether the status was written
 * (false). Events can be forged by anyone with `events create`: every string is sanitised and
 * bounded, only member names of the pool (`<pool>-<n>`, n within the contract's size) count,
 * and the number of lines, passes and steps read is bounded. A pass with an Event whose time
 * was clamped (beyond its creation: a forgery or a wrong clock) is marked suspect. Pure.
 */

import { AUDIT_PASS_PATTERN, type AuditEntry } from '../pool/audit.js';
import { bounded } from '../text/sanitize.js';
import type { ReconcileStep } from './member-step.js';
import { STEP_KINDS, type TraceEvent } from './reconcile-plan.js';

/** How a plan or step was seen: traced by this process, or rebuilt from audit Events. */
export type Seen = 'directly' | 'through-events';

/** A trace event and how it was seen. */
export type SeenTraceEvent = TraceEvent & { seen: Seen };

/** Who ran a pass, as its Events say (the acting identity and the writer's host). */
export interface ReconcilerId {
	actor: string;
	instance: string;
}

/** One pass of another reconciler, rebuilt from its Events. */
export interface SeenPass {
	seen: 'through-events';
	namespace: string;
	pool: string;
	reconciler: ReconcilerId;
	/** The pass id its Events carry, or null for older Events grouped by time. */
	pass: string | null;
	/** The times of its first and last Event (ms). */
	start: number;
	end: number;
	/** The pass as the trace stream tells one: a plan, each member's step-end, then done. */
	events: SeenTraceEvent[];
	/** Why the pass is not to be trusted as it stands (a clamped time), or ''. */
	suspect: string;
}

/** Options of otherPasses. */
export interface OtherPassesOptions {
	/** Pass ids of this process's own reconciles (seen directly): their Events are skipped. */
	ownPasses?: ReadonlySet<string>;
	/** Only Events at or after this time (ms). */
	since?: number;
	/** At most this many passes, newest first (default 20). */
	maxPasses?: number;
}

/** The audit actions a reconcile pass writes. */
const PASS_ACTIONS: ReadonlySet<string> = new Set([
	'create',
	'start',
	'replace',
	'delete',
	'takeover',
	'reconcile-failed',
	'replace-stopped',
]);
/** The most audit lines read (newest first); older ones are not looked at. */
export const PASS_LINES_MAX = 5000;
/** The most members one pass may name (a pool's size is at most 1000). */
const MEMBERS_MAX = 1000;
/** An older Event more than this after its reconciler's last one starts a new pass. */
export const PASS_GAP_MS = 60_000;
/** A pass longer than this (first to last Event) is cut into another: a forged id held for ever. */
export const PASS_SPAN_MAX_MS = 15 * 60_000;
/** The longest reason or error kept. */
const TEXT_MAX = 300;

interface Act {
	time: number;
	member: string;
	step: ReconcileStep;
	failed: boolean;
	text: string;
}

interface Group {
	key: string;
	namespace: string;
	pool: string;
	reconciler: ReconcilerId;
	pass: string | null;
	start: number;
	end: number;
	acts: Act[];
	errors: string[];
	suspect: string;
	/** The members done so far (older Events: one coming round again starts a new pass). */
	members: Set<string>;
}

/** The member index of a name of the pool, or null when it is not one of its members. */
function memberIndex(pool: string, name: string): number | null {
	if (!name.startsWith(`${pool}-`)) return null;
	const tail = name.slice(pool.length + 1);
	if (!/^[1-9]\d{0,3}$/.test(tail)) return null;
	const n = Number(tail);
	return n <= MEMBERS_MAX ? n : null;
}

/** The members a bulk Event names: `desk-1..desk-3, desk-7 (4 members)` (see memberRanges). */
export function membersOfTarget(pool: string, target: string): string[] {
	const list = target.replace(/ \(\d+ members\)$/, '').replace(/, \.\.\.$/, '');
	const out: string[] = [];
	for (const part of list.split(', ')) {
		const [first, last] = part.split('..');
		const a = memberIndex(pool, first ?? '');
		if (a === null) continue;
		const b = last === undefined ? a : memberIndex(pool, last);
		if (b === null || b < a) continue;
		for (let i = a; i <= b && out.length < MEMBERS_MAX; i++) out.push(`${pool}-${i}`);
	}
	return out;
}

/** The step a failure's detail names (`replace: …`), else replace (what fails most). */
function failedStep(detail: string): ReconcileStep {
	const word = detail.slice(0, detail.indexOf(':'));
	return (STEP_KINDS as readonly string[]).includes(word) ? (word as ReconcileStep) : 'replace';
}

/** The acts of one audit line (a bulk Event: one per member it names). */
function actsOf(e: AuditEntry): Act[] {
	if (e.action === 'reconcile-failed') {
		if (memberIndex(e.pool, e.member) === null) return [];
		return [
			{
				time: e.time,
				member: e.member,
				step: failedStep(e.detail),
				failed: true,
				text: e.detail,
			},
		];
	}
	const step = e.action as ReconcileStep;
	const members = e.member
		? memberIndex(e.pool, e.member) === null
			? []
			: [e.member]
		: membersOfTarget(e.pool, e.target);
	return members.map((member) => ({ time: e.time, member, step, failed: false, text: e.detail }));
}

/**
 * True when a line is a reconciler's act: an action a pass writes, and for an older Event
 * (no pass id) not a user's own start of their claim (a claim writes `start` too, by the
 * holder).
 */
function isPassLine(e: AuditEntry): boolean {
	if (!PASS_ACTIONS.has(e.action)) return false;
	if (e.pass) return true;
	return !(e.action === 'start' && e.holder !== '' && e.holder === e.actor);
}

/**
 * The recent passes of other reconcilers of a pool, newest first, from its audit lines (any
 * order; other pools' and other actions' lines are ignored).
 */
export function otherPasses(
	entries: readonly AuditEntry[],
	pool: string,
	opts: OtherPassesOptions = {},
): SeenPass[] {
	const own = opts.ownPasses ?? new Set<string>();
	const lines = entries
		.filter((e) => e.pool === pool && (opts.since === undefined || e.time >= opts.since))
		.filter(isPassLine)
		.filter((e) => !(e.pass && own.has(e.pass)))
		.sort((a, b) => b.time - a.time || (a.name < b.name ? 1 : -1))
		.slice(0, PASS_LINES_MAX)
		.reverse();
	const open = new Map<string, Group>();
	const groups: Group[] = [];
	for (const e of lines) {
		const who = `${e.namespace}\u0000${e.actor}\u0000${e.instance}`;
		const pass = e.pass && AUDIT_PASS_PATTERN.test(e.pass) ? e.pass : null;
		const key = pass ? `${who}\u0000${pass}` : who;
		const acts = actsOf(e);
		// a line naming no member of the pool (a forgery, another build's shape) tells nothing
		if (acts.length === 0 && e.action !== 'replace-stopped') continue;
		let g = open.get(key);
		const fresh =
			!g ||
			e.time - g.start > PASS_SPAN_MAX_MS ||
			(pass === null &&
				(e.time - g.end > PASS_GAP_MS || acts.some((a) => g?.members.has(a.member))));
		if (fresh || !g) {
			g = {
				key,
				namespace: e.namespace,
				pool,
				reconciler: { actor: e.actor, instance: e.instance },
				pass,
				start: e.time,
				end: e.time,
				acts: [],
				errors: [],
				suspect: '',
				members: new Set(),
			};
			open.set(key, g);
			groups.push(g);
		}
		g.end = Math.max(g.end, e.time);
		if (e.clamped && !g.suspect)
			g.suspect =
				'an Event of this pass states a time beyond its creation (forged, or a wrong clock)';
		if (e.action === 'replace-stopped') g.errors.push(e.detail || 'replacing is stopped');
		for (const a of acts) {
			if (g.acts.length >= MEMBERS_MAX) break;
			g.acts.push(a);
			g.members.add(a.member);
			if (a.failed) g.errors.push(a.text);
		}
	}
	return groups
		.sort((a, b) => b.end - a.end || (a.key < b.key ? -1 : 1))
		.slice(0, Math.max(0, opts.maxPasses ?? 20))
		.map(passOf);
}

const text = (v: string, max = TEXT_MAX) => bounded(v, max);

/** A group as the trace stream tells a pass. */
function passOf(g: Group): SeenPass {
	const pool = text(g.pool, 80);
	const seen = 'through-events' as const;
	const byKind = new Map<ReconcileStep, Map<string, string>>();
	for (const a of g.acts) {
		const members = byKind.get(a.step) ?? new Map<string, string>();
		if (!members.has(a.member)) members.set(a.member, a.text);
		byKind.set(a.step, members);
	}
	const index = (m: string) => memberIndex(g.pool, m) ?? 0;
	const plan: SeenTraceEvent = {
		seen,
		type: 'plan',
		time: g.start,
		pool,
		dryRun: false,
		...(g.pass ? { pass: g.pass } : {}),
		steps: STEP_KINDS.map((kind) => ({
			kind,
			members: [...(byKind.get(kind) ?? new Map<string, string>()).entries()]
				.sort((a, b) => index(a[0]) - index(b[0]))
				.map(([member, why]) => ({
					member: text(member, 80),
					reason: why ? text(why) : 'seen through its Event',
				})),
		})),
		// Events do not tell which members a pass left alone, nor why
		leftAlone: [],
	};
	const ends: SeenTraceEvent[] = g.acts.map((a) => ({
		seen,
		type: 'step-end',
		time: a.time,
		pool,
		member: text(a.member, 80),
		step: a.step,
		result: a.failed ? 'failed' : 'done',
		ms: 0,
		...(a.failed ? { error: text(a.text) } : {}),
	}));
	const failed = g.acts.filter((a) => a.failed).length;
	const done: SeenTraceEvent = {
		seen,
		type: 'done',
		time: g.end,
		pool,
		dryRun: false,
		ok: g.errors.length === 0,
		done: g.acts.length - failed,
		failed,
		skipped: 0,
		statusWritten: false,
		ms: Math.max(0, g.end - g.start),
		errors: g.errors.slice(0, 50).map((e) => text(e, 600)),
	};
	return {
		seen,
		namespace: text(g.namespace, 253),
		pool,
		reconciler: {
			actor: text(g.reconciler.actor, 253),
			instance: text(g.reconciler.instance, 128),
		},
		pass: g.pass,
		start: g.start,
		end: g.end,
		events: [plan, ...ends, done],
		suspect: g.suspect,
	};
}
