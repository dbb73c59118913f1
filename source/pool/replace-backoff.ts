/**
 * No replace storm: a member that fails again after a replace is replaced again only after a
 * growing wait (10 s doubling to 5 min), and when most of a pool fails the same way after
 * replaces, reconcile stops replacing and says so, until the definition changes or members
 * recover. The replace count lives on the member's PVC (REPLACED_ANNOTATION) so that it
 * survives reconciles and processes; a replace carries it over to the new PVC.
 */

import { ctpoolCommand } from './command-hint.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from './lease.js';
import type { MemberView } from './member-state.js';
import { REPLACED_ANNOTATION } from './names.js';
import { toMillis } from './objects.js';

/** The first wait before replacing a member that failed again after a replace. */
export const REPLACE_BACKOFF_BASE_MS = 10_000;
/** The longest wait between two replaces of a failing member. */
export const REPLACE_BACKOFF_MAX_MS = 300_000;
/**
 * Replaces after which a failure shared by most of the pool stops the replacing: the pool's
 * source was made this many times over and failed the same way each time.
 */
export const STORM_AFTER_REPLACES = 2;

/** What the PVC records of the member's replaces after failures. */
export interface ReplaceRecord {
	count: number;
	/** When the last replace happened (ms). */
	at: number;
}

/**
 * How far in the future a replace time may lie (ms), as for Leases. A time up to this far
 * ahead is kept (it delays the next replace by at most the allowance more); a later one (a
 * wrong clock, or a hand-written `"at":"2099-..."`) cannot be trusted and reads as long ago
 * (the epoch), so it never holds a failed member back: clamping it to now + allowance would
 * move with the clock and hold the member for good.
 */
export const REPLACE_SKEW_ALLOWANCE_MS = CLOCK_SKEW_ALLOWANCE_MS;

/** The most replaces a record counts (more read as this many: the wait is at its longest). */
export const REPLACE_COUNT_MAX = 1000;

/**
 * Reads the replace record of a PVC's annotations; a named problem when unreadable, null
 * when absent. Never throws. With `now`, a time beyond the skew allowance reads as the epoch.
 */
export function readReplaceRecord(
	annotations: Readonly<Record<string, string>> | undefined,
	now?: number,
): { ok: true; value: ReplaceRecord } | { ok: false; problem: string } | null {
	const text =
		annotations && typeof annotations === 'object' ? annotations[REPLACED_ANNOTATION] : undefined;
	if (text === undefined || text === null || text === '') return null;
	const problem = (what: string) => ({
		ok: false as const,
		problem: `${REPLACED_ANNOTATION}: ${what}`,
	});
	if (typeof text !== 'string') return problem('is not text');
	let o: unknown;
	try {
		o = JSON.parse(text);
	} catch {
		return problem('is not JSON');
	}
	if (!o || typeof o !== 'object' || Array.isArray(o)) return problem('is not a JSON object');
	const { count, at } = o as { count?: unknown; at?: unknown };
	if (typeof count !== 'number' || !Number.isInteger(count) || count < 1)
		return problem('count is not a whole number of at least 1');
	const ms = typeof at === 'string' ? toMillis(at) : null;
	if (ms === null) return problem('at is not a time');
	const trusted = now === undefined || ms <= now + REPLACE_SKEW_ALLOWANCE_MS;
	return { ok: true, value: { count: Math.min(count, REPLACE_COUNT_MAX), at: trusted ? ms : 0 } };
}

/**
 * Reads the replace record of a PVC's annotations; null when absent or unreadable. With
 * `now`, a time beyond the skew allowance reads as the epoch (see REPLACE_SKEW_ALLOWANCE_MS).
 */
export function parseReplaceRecord(
	annotations: Readonly<Record<string, string>> | undefined,
	now?: number,
): ReplaceRecord | null {
	const r = readReplaceRecord(annotations, now);
	return r?.ok ? r.value : null;
}

/** The annotation value of a replace record (times in seconds, as Kubernetes writes them). */
export function replaceRecordJson(r: ReplaceRecord): string {
	const at = new Date(r.at).toISOString().replace(/\.\d{3}Z$/, 'Z');
	return JSON.stringify({ count: r.count, at });
}

/** The wait after the count-th replace before the next one (0 before any replace). */
export function replaceBackoffMs(count: number): number {
	if (count < 1) return 0;
	return Math.min(REPLACE_BACKOFF_MAX_MS, REPLACE_BACKOFF_BASE_MS * 2 ** Math.min(count - 1, 20));
}

/** The fields of a member view the backoff reads. */
export type BackoffView = Pick<
	MemberView,
	'name' | 'state' | 'drifted' | 'message' | 'replaces' | 'replacedAt'
>;

/**
 * When a Failed member that failed again after a replace may be replaced next (ms), or null
 * when it may be replaced now: a drifted member (the definition changed) is never held.
 */
export function replaceHeldUntil(v: BackoffView, now: number): number | null {
	if (v.state !== 'Failed' || v.drifted || v.replaces < 1 || v.replacedAt === null) return null;
	const until = v.replacedAt + replaceBackoffMs(v.replaces);
	return now < until ? until : null;
}

/**
 * The kind of a failure, for grouping: the reason word of the member's message, with the two
 * faces of one image pull failure (ErrImagePull, ImagePullBackOff) as one.
 */
export function failureKind(message: string): string {
	const word = /^[A-Za-z][A-Za-z0-9]*/.exec(message)?.[0] ?? 'Failed';
	return word === 'ErrImagePull' ? 'ImagePullBackOff' : word;
}

/** True when a failure kind is the image pull's. */
export function isImagePullKind(kind: string): boolean {
	return kind === 'ImagePullBackOff' || kind === 'InvalidImageName';
}

/** A pool most of whose members fail the same way after replaces: replacing stops. */
export interface ReplaceStorm {
	/** The failure kind they share (`ImagePullBackOff`, `CrashLoopBackOff`, `Error`...). */
	kind: string;
	/** The members failing that way, by index. */
	members: string[];
	/** One member's message, as an example. */
	example: string;
	/** The pool size, for "N of M". */
	size: number;
}

/**
 * The replace storm of a pool, or null: more than half of the pool's size are Failed the same
 * way with the current source (not drifted, within size), and at least one of them has been
 * replaced STORM_AFTER_REPLACES times already. A drift (a changed definition) or members that
 * recover end it by themselves.
 */
export function replaceStorm(views: readonly BackoffView[], size: number): ReplaceStorm | null {
	if (size < 1) return null;
	const groups = new Map<string, BackoffView[]>();
	for (const v of views) {
		if (v.state !== 'Failed' || v.drifted) continue;
		const kind = failureKind(v.message);
		const g = groups.get(kind);
		if (g) g.push(v);
		else groups.set(kind, [v]);
	}
	let best: [string, BackoffView[]] | null = null;
	for (const entry of groups) if (!best || entry[1].length > best[1].length) best = entry;
	if (!best) return null;
	const [kind, members] = best;
	if (members.length * 2 <= size) return null;
	if (!members.some((m) => m.replaces >= STORM_AFTER_REPLACES)) return null;
	return { kind, members: members.map((m) => m.name), example: members[0]?.message ?? '', size };
}

/**
 * The status error of a storm: what fails, that replacing stopped, and the way out. Stable
 * while the storm lasts, so that reconciles that change nothing write nothing.
 */
export function stormText(pool: string, storm: ReplaceStorm, namespace: string): string {
	const n = storm.members.length;
	// recorded for every reader (other consoles, other contexts): -n always
	const cause = isImagePullKind(storm.kind)
		? `the pool image cannot be pulled; change it with: ${ctpoolCommand(`apply ${pool} --image <image>`, namespace)}`
		: `fix the cause, or change the definition with ${ctpoolCommand(`apply ${pool}`, namespace)}`;
	return `pool ${pool}: ${n} of ${storm.size} members failed the same way (${storm.kind}) after ${STORM_AFTER_REPLACES} replaces; replacing is stopped until the definition changes or members recover: ${cause}`;
}

/** The status error of a member whose next replace waits (stable while it waits). */
export function heldText(v: BackoffView, until: number): string {
	const at = new Date(until).toISOString().replace(/\.\d{3}Z$/, 'Z');
	return `${v.name}: failed again after ${v.replaces} replace${v.replaces === 1 ? '' : 's'} (${failureKind(v.message)}); the next replace waits until ${at}`;
}

/** The storm line of a recorded status's errors (replacing is stopped), or null. */
export function recordedStorm(errors: readonly string[] | undefined, pool: string): string | null {
	return (
		errors?.find((e) => e.startsWith(`pool ${pool}: `) && e.includes('replacing is stopped')) ??
		null
	);
}
