/**
 * The one format of ctpool's Kubernetes Events, and the audit trail read back from them.
 * Every Event ctpool writes (console, CLI, reconciler, broker) carries the same facts twice:
 * for programs, in the Event's reason and action fields and the `ctpool.corral.dev/audit`
 * annotation (JSON, versioned); for people, in a note of one fixed shape:
 *
 *   <verb> <target>[ for|from <holder>] by <actor>[ (--force[, as <identity>])][: <detail>]
 *
 * Pure: no clients, no clock.
 */

/** What an Event records: the audit vocabulary (`ctpool audit --action`). */
export type AuditAction =
	| 'claim'
	| 'renew'
	| 'release'
	| 'release-failed'
	| 'maintenance-on'
	| 'maintenance-off'
	| 'claim-refused'
	| 'create'
	| 'start'
	| 'replace'
	| 'delete'
	| 'takeover'
	| 'reconcile-failed'
	| 'replace-stopped'
	| 'adopt';

/** Every audit action, in the order help lists them. */
export const AUDIT_ACTIONS: readonly AuditAction[] = [
	'claim',
	'renew',
	'release',
	'release-failed',
	'maintenance-on',
	'maintenance-off',
	'claim-refused',
	'create',
	'start',
	'replace',
	'delete',
	'takeover',
	'reconcile-failed',
	'replace-stopped',
	'adopt',
];

/** A filter word that is not an action of its own: a release done with --force. */
export const FORCE_RELEASE_FILTER = 'force-release';

/** The Event reason of each action (Kubernetes' CamelCase, past tense). */
export const AUDIT_REASON: Readonly<Record<AuditAction, string>> = {
	claim: 'Claimed',
	renew: 'Renewed',
	release: 'Released',
	'release-failed': 'ReleaseFailed',
	'maintenance-on': 'MaintenanceOn',
	'maintenance-off': 'MaintenanceOff',
	'claim-refused': 'ClaimRefused',
	create: 'Created',
	start: 'Started',
	replace: 'Replaced',
	delete: 'Deleted',
	takeover: 'TakenOver',
	'reconcile-failed': 'ReconcileFailed',
	'replace-stopped': 'ReplaceStopped',
	adopt: 'Adopted',
};

/** The actions whose Events are Warnings. */
const WARNINGS: ReadonlySet<AuditAction> = new Set([
	'release-failed',
	'claim-refused',
	'reconcile-failed',
	'replace-stopped',
]);

/** The Event type of an action. */
export function auditType(action: AuditAction): 'Normal' | 'Warning' {
	return WARNINGS.has(action) ? 'Warning' : 'Normal';
}

/** The annotation on every ctpool Event that holds its AuditRecord as JSON. */
export const AUDIT_ANNOTATION = 'ctpool.corral.dev/audit';
/** The label on every ctpool Event naming its pool: one selector lists a pool's audit. */
export const AUDIT_POOL_LABEL = 'ctpool.corral.dev/pool';
/** The version of the annotation's JSON. */
export const AUDIT_RECORD_VERSION = 1;

/** The facts of one audited act. */
export interface AuditRecord {
	action: AuditAction;
	pool: string;
	/** The member acted on; absent for an act on the pool or on many members. */
	member?: string;
	/** What was acted on when not one member: `desk-1..desk-3 (3 members)`, or the pool. */
	target?: string;
	/** Who held (claim, renew: now holds) the member's claim; absent when nobody did. */
	holder?: string;
	/** The identity the command named (claim, release), when it differs from holder and actor. */
	identity?: string;
	/** Who acted: the acting identity (`--identity`, else CTPOOL_IDENTITY, else user@host). */
	actor: string;
	/**
	 * The user the cluster authenticated the writer as (a SelfSubjectReview), when it could
	 * be read: unlike actor, not chosen by the writer (but see AUDIT_TRUST_NOTE).
	 */
	user?: string;
	/**
	 * Done with --force: a release of another identity's claim, or of the holder's claim by
	 * another authenticated user than the one who claimed.
	 */
	force?: boolean;
	/** How many refusals one ClaimRefused Event stands for (refusals are rate-limited). */
	count?: number;
	/** The rest: a reason, an error, what drifted. */
	detail?: string;
	/**
	 * The reconcile pass that did the act (AUDIT_PASS_PATTERN): the acts of one pass share it.
	 * Absent on Events of other operations and of older builds.
	 */
	pass?: string;
}

/** What a pass id may be: 8 to 32 lowercase hex digits (one read otherwise is dropped). */
export const AUDIT_PASS_PATTERN = /^[0-9a-f]{8,32}$/;

/** A pass id read from the cluster, or '' when absent or not of AUDIT_PASS_PATTERN. */
export function auditPass(v: unknown): string {
	return typeof v === 'string' && AUDIT_PASS_PATTERN.test(v) ? v : '';
}

const VERB: Readonly<Record<AuditAction, string>> = {
	claim: 'claimed',
	renew: 'renewed the claim on',
	release: 'released',
	'release-failed': 'failed to release',
	'maintenance-on': 'put in maintenance',
	'maintenance-off': 'took out of maintenance',
	'claim-refused': 'refused a claim in pool',
	create: 'created',
	start: 'started',
	replace: 'replaced',
	delete: 'deleted',
	takeover: 'took over',
	'reconcile-failed': 'failed to reconcile',
	'replace-stopped': 'stopped replacing the failed members of pool',
	adopt: 'adopted the pod of',
};

/** Whether the holder is the one the act is for (claim) or from (release). */
const HOLDER_WORD: Partial<Record<AuditAction, string>> = {
	claim: 'for',
	renew: 'for',
	start: 'for',
	'claim-refused': 'for',
	release: 'from',
	'release-failed': 'from',
};

/** What the record is about, as its note names it. */
export function auditTarget(r: AuditRecord): string {
	return r.member ?? r.target ?? r.pool;
}

/** The note of an Event: the record in the one fixed shape (at most 1,000 characters). */
export function auditNote(r: AuditRecord): string {
	const holder = r.holder ? ` ${HOLDER_WORD[r.action] ?? 'held by'} ${r.holder}` : '';
	const flags: string[] = [];
	if (r.force) flags.push('--force');
	if (r.identity) flags.push(`as ${r.identity}`);
	if (r.user) flags.push(`user ${r.user}`);
	if (r.count && r.count > 1) flags.push(`${r.count} times`);
	const text = `${VERB[r.action]} ${auditTarget(r)}${holder} by ${r.actor}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}${r.detail ? `: ${r.detail}` : ''}`;
	return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

/** A record with its empty and redundant fields left out (identity equal to holder or actor). */
export function normalRecord(r: AuditRecord): AuditRecord {
	const out: AuditRecord = { action: r.action, pool: r.pool, actor: r.actor };
	if (r.member) out.member = r.member;
	else if (r.target) out.target = r.target;
	if (r.holder) out.holder = r.holder;
	if (r.identity && r.identity !== r.holder && r.identity !== r.actor) out.identity = r.identity;
	if (r.user) out.user = r.user;
	if (r.force) out.force = true;
	if (r.count && r.count > 1) out.count = r.count;
	if (r.detail) out.detail = r.detail.length > 2000 ? `${r.detail.slice(0, 1997)}...` : r.detail;
	if (r.pass && auditPass(r.pass)) out.pass = r.pass;
	return out;
}

/** One line of the audit trail, read back from an Event. */
export interface AuditEntry {
	/** When (ms since the epoch; the Event's last time). */
	time: number;
	namespace: string;
	pool: string;
	/** The member, or '' for an act on the pool or many members. */
	member: string;
	action: AuditAction;
	/** The Event's reason. */
	reason: string;
	type: 'Normal' | 'Warning';
	holder: string;
	identity: string;
	actor: string;
	/** The authenticated user the writer recorded, or ''. */
	user: string;
	force: boolean;
	/**
	 * The time the Event claims was later than the cluster's own creationTimestamp (beyond the
	 * skew allowance) or than now: it was clamped. A sign of a wrong clock or a forgery.
	 */
	clamped: boolean;
	/** How many acts this line stands for (a rate-limited refusal, an Event counted again). */
	count: number;
	/** What was acted on when not one member (many members, the pool), else ''. */
	target: string;
	/** The rest of the record: a reason, an error, what drifted; or ''. */
	detail: string;
	/** The Event's note, as written. */
	message: string;
	/** The Event's name (stable: a key for the line). */
	name: string;
	/** The writer's host (reportingInstance), or ''. */
	instance: string;
	/** The reconcile pass that did the act (see AuditRecord.pass), when the Event names a valid one. */
	pass?: string;
}

/** The parts of a core/v1 Event the audit reads. */
export interface RawAuditEvent {
	metadata?: {
		name?: string;
		namespace?: string;
		creationTimestamp?: string | Date;
		annotations?: Record<string, string>;
		labels?: Record<string, string>;
	};
	type?: string;
	reason?: string;
	message?: string;
	count?: number;
	firstTimestamp?: string | Date;
	lastTimestamp?: string | Date;
	eventTime?: string | Date;
	reportingInstance?: string;
	series?: { count?: number; lastObservedTime?: string | Date };
}

/** The largest count an audit line may stand for; a larger (or unreadable) count is a problem. */
export const AUDIT_COUNT_MAX = 1_000_000;
/** The longest string field of an audit record kept (longer ones are cut). */
const AUDIT_FIELD_MAX = 2000;
/**
 * How far in the future an Event's time may lie (ms): as for Leases, clocks may disagree by
 * this much; a later time is clamped to it.
 */
export const AUDIT_SKEW_ALLOWANCE_MS = 5 * 60_000;

function millis(v: unknown): number | null {
	if (v === undefined || v === null || v === '') return null;
	const t = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : Number.NaN;
	return Number.isFinite(t) ? t : null;
}

function str(v: unknown, max = AUDIT_FIELD_MAX): string {
	return typeof v === 'string' ? (v.length > max ? `${v.slice(0, max - 3)}...` : v) : '';
}

/** A count read from the cluster: a whole number 1..AUDIT_COUNT_MAX, else null. */
export function auditCount(v: unknown): number | null {
	return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= AUDIT_COUNT_MAX ? v : null;
}

const ACTIONS = new Set<string>(AUDIT_ACTIONS);

/** The audit annotation parsed: every field typed and bounded. */
export interface ParsedAuditRecord {
	action: AuditAction;
	pool: string;
	member: string;
	target: string;
	holder: string;
	identity: string;
	actor: string;
	user: string;
	force: boolean;
	/** 1..AUDIT_COUNT_MAX. */
	count: number;
	detail: string;
	/** The reconcile pass (AUDIT_PASS_PATTERN), or '' when absent or malformed (older Events have none). */
	pass: string;
}

/** A parse of something read from the cluster: a typed value, or a named problem. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Parses the `ctpool.corral.dev/audit` annotation. Never throws: a value that is not a JSON
 * object, an unknown action or a count that is not a whole number 1..AUDIT_COUNT_MAX (1e309
 * parses as Infinity) is a named problem; string fields are cut at 2,000 characters.
 */
export function parseAuditAnnotation(text: unknown): Parsed<ParsedAuditRecord> {
	if (typeof text !== 'string' || text === '')
		return { ok: false, problem: 'the audit annotation is absent' };
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		return { ok: false, problem: 'the audit annotation is not JSON' };
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
		return { ok: false, problem: 'the audit annotation is not a JSON object' };
	const r = parsed as Record<string, unknown>;
	const action = typeof r.action === 'string' ? r.action : '';
	if (!ACTIONS.has(action))
		return {
			ok: false,
			problem: `the audit annotation's action ${JSON.stringify(str(r.action, 40))} is unknown`,
		};
	let count = 1;
	if (r.count !== undefined && r.count !== null) {
		const n = auditCount(r.count);
		if (n === null)
			return {
				ok: false,
				problem: `the audit annotation's count is not a whole number 1..${AUDIT_COUNT_MAX}`,
			};
		count = n;
	}
	return {
		ok: true,
		value: {
			action: action as AuditAction,
			pool: str(r.pool, 253),
			member: str(r.member, 253),
			target: str(r.target),
			holder: str(r.holder),
			identity: str(r.identity),
			actor: str(r.actor),
			user: str(r.user, 253),
			force: r.force === true,
			count,
			detail: str(r.detail),
			pass: auditPass(r.pass),
		},
	};
}

/**
 * The audit line of an Event, or null when the Event is not one of ours (no audit
 * annotation, or one that does not parse: see parseAuditAnnotation). Counts are bounded;
 * with `now`, a time beyond the skew allowance is clamped to now + allowance. Strings are as
 * the cluster holds them (cut at 2,000 characters): sanitise before drawing.
 */
export function auditEntry(e: RawAuditEvent, now?: number): AuditEntry | null {
	if (!e || typeof e !== 'object') return null;
	const annotations = e.metadata?.annotations;
	const raw =
		annotations && typeof annotations === 'object' ? annotations[AUDIT_ANNOTATION] : undefined;
	if (!raw) return null;
	const parsed = parseAuditAnnotation(raw);
	if (!parsed.ok) return null;
	const r = parsed.value;
	const { time, clamped } = auditTime(e, now);
	const label = e.metadata?.labels?.[AUDIT_POOL_LABEL];
	return {
		time,
		namespace: str(e.metadata?.namespace, 253),
		pool: r.pool || str(label, 253),
		member: r.member,
		action: r.action,
		reason: str(e.reason, 128),
		type: e.type === 'Warning' ? 'Warning' : 'Normal',
		holder: r.holder,
		identity: r.identity,
		actor: r.actor,
		user: r.user,
		force: r.force,
		clamped,
		count: Math.max(r.count, auditCount(e.series?.count) ?? 1),
		target: r.target,
		detail: r.detail,
		message: str(e.message),
		name: str(e.metadata?.name, 253),
		instance: str(e.reportingInstance, 128),
		...(r.pass ? { pass: r.pass } : {}),
	};
}

/**
 * The time of an Event's audit line, bounded. The times an Event states (lastTimestamp,
 * eventTime, series) are written by its reporter and can say anything; its
 * metadata.creationTimestamp is set by the API server and cannot be forged. A stated time is
 * kept only up to the creation time (ctpool writes each Event once, so its time is its
 * creation), and never beyond now plus the skew allowance: so a
 * `lastTimestamp: 2099-…` neither pins a line on top nor makes the oldest line's age
 * nonsense. `clamped` says a stated time lay beyond the skew allowance.
 */
export function auditTime(e: RawAuditEvent, now?: number): { time: number; clamped: boolean } {
	const created = millis(e.metadata?.creationTimestamp);
	const stated =
		millis(e.series?.lastObservedTime) ??
		millis(e.lastTimestamp) ??
		millis(e.eventTime) ??
		millis(e.firstTimestamp);
	let time = stated ?? created ?? 0;
	let clamped = false;
	if (created !== null && time > created) {
		clamped = time > created + AUDIT_SKEW_ALLOWANCE_MS;
		time = created;
	}
	if (now !== undefined && time > now + AUDIT_SKEW_ALLOWANCE_MS) {
		time = now + AUDIT_SKEW_ALLOWANCE_MS;
		clamped = true;
	}
	return { time, clamped };
}

/**
 * What anyone reading the audit must know: it is made of Events, which their reporters write
 * and anyone with `events create` can forge, and where the record that cannot be forged is.
 */
export const AUDIT_TRUST_NOTE =
	"Events are written by their reporters: anyone with 'create' on events can forge a line (ctpool checks only their shape). The cluster's own record of who did what is the API server's audit log (kube-apiserver --audit-log-path and --audit-policy-file; on a managed cluster, its provider's audit logs).";

/** What to keep of the audit trail. */
export interface AuditFilter {
	namespace?: string;
	pool?: string;
	member?: string;
	/** Matches the actor, the holder or the named identity. */
	identity?: string;
	/** An AuditAction, or `force-release`. */
	action?: string;
	/** Only lines at or after this time (ms). */
	since?: number;
}

/** True when the entry passes the filter (every given field must match exactly). */
export function auditMatches(e: AuditEntry, f: AuditFilter): boolean {
	if (f.namespace !== undefined && e.namespace !== f.namespace) return false;
	if (f.pool !== undefined && e.pool !== f.pool) return false;
	if (f.member !== undefined && e.member !== f.member) return false;
	if (
		f.identity !== undefined &&
		e.actor !== f.identity &&
		e.holder !== f.identity &&
		e.identity !== f.identity
	)
		return false;
	if (f.action !== undefined) {
		if (f.action === FORCE_RELEASE_FILTER) {
			if (e.action !== 'release' || !e.force) return false;
		} else if (e.action !== f.action) return false;
	}
	if (f.since !== undefined && e.time < f.since) return false;
	return true;
}

/** Newest first; ties by name, so the order is stable. */
export function newestFirst(a: AuditEntry, b: AuditEntry): number {
	return b.time - a.time || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}

/** The problem with an --action value, or null when it names an action. */
export function auditActionProblem(action: string): string | null {
	if (ACTIONS.has(action) || action === FORCE_RELEASE_FILTER) return null;
	return `unknown action ${JSON.stringify(action.slice(0, 40))}; use one of ${[...AUDIT_ACTIONS, FORCE_RELEASE_FILTER].join(', ')}`;
}

/** How long a real cluster keeps Events by default (kube-apiserver --event-ttl=1h). */
export const DEFAULT_EVENT_TTL_MS = 3_600_000;

/** Refused claims of a pool over the window ending at now (each line counts its count). */
export function refusedClaims(
	entries: Iterable<AuditEntry>,
	pool: string,
	now: number,
	windowMs: number = DEFAULT_EVENT_TTL_MS,
	namespace?: string,
): number {
	let n = 0;
	for (const e of entries)
		if (
			e.action === 'claim-refused' &&
			e.pool === pool &&
			e.time >= now - windowMs &&
			(namespace === undefined || e.namespace === namespace)
		)
			n += e.count;
	return n;
}

/** The action as a person reads it: `release --force`, `claim-refused x3`. */
export function auditActionText(e: AuditEntry): string {
	return `${e.action}${e.force ? ' --force' : ''}${e.count > 1 ? ` x${e.count}` : ''}`;
}

/**
 * Who acted, with the identity named when it was another and the authenticated user when
 * recorded: `root@host (as nightshift, user kubernetes-admin)`.
 */
export function auditActorText(e: AuditEntry): string {
	const extra = [
		...(e.identity ? [`as ${e.identity}`] : []),
		...(e.user ? [`user ${e.user}`] : []),
	];
	return extra.length > 0 ? `${e.actor} (${extra.join(', ')})` : e.actor;
}

/** An audit trail cut to a number of lines. */
export interface CappedAudit {
	/** Newest first. */
	kept: AuditEntry[];
	/** How many lines were left out. */
	dropped: number;
	/** Of those, how many stated a time beyond the skew allowance (clamped). */
	droppedClamped: number;
}

/**
 * Keeps at most max lines, newest first by their bounded time. Lines whose stated time was
 * clamped (a forgery, or a writer's wrong clock) give way first, then the oldest: a flood of
 * future-dated Events cannot push the real lines out.
 */
export function capAudit(entries: Iterable<AuditEntry>, max: number): CappedAudit {
	const all = [...entries].sort(newestFirst);
	if (all.length <= max) return { kept: all, dropped: 0, droppedClamped: 0 };
	const clamped = all.filter((e) => e.clamped).length;
	const dropClamped = Math.min(clamped, all.length - max);
	let skip = dropClamped;
	// the oldest clamped lines go first (they sort newest first; walk from the end)
	const gone = new Set<AuditEntry>();
	for (let i = all.length - 1; i >= 0 && skip > 0; i--)
		if (all[i]!.clamped) {
			gone.add(all[i]!);
			skip--;
		}
	const left = all.filter((e) => !gone.has(e));
	return { kept: left.slice(0, max), dropped: all.length - max, droppedClamped: dropClamped };
}

/** What the dropped lines were, for a title: `12 older lines dropped (10 with forged times)`. */
export function droppedText(c: Pick<CappedAudit, 'dropped' | 'droppedClamped'>): string {
	if (c.dropped === 0) return '';
	const older = c.dropped - c.droppedClamped;
	const parts = [
		...(c.droppedClamped > 0
			? [`${c.droppedClamped} with a time beyond their creation (forged, or a wrong clock)`]
			: []),
		...(older > 0 ? [`${older} oldest`] : []),
	];
	return `${c.dropped} line${c.dropped === 1 ? '' : 's'} dropped: ${parts.join(', ')}`;
}
