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
	/** Done with --force (a release of another identity's claim). */
	force?: boolean;
	/** How many refusals one ClaimRefused Event stands for (refusals are rate-limited). */
	count?: number;
	/** The rest: a reason, an error, what drifted. */
	detail?: string;
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
	if (r.force) out.force = true;
	if (r.count && r.count > 1) out.count = r.count;
	if (r.detail) out.detail = r.detail.length > 2000 ? `${r.detail.slice(0, 1997)}...` : r.detail;
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
	force: boolean;
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
	force: boolean;
	/** 1..AUDIT_COUNT_MAX. */
	count: number;
	detail: string;
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
			force: r.force === true,
			count,
			detail: str(r.detail),
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
	let time =
		millis(e.series?.lastObservedTime) ??
		millis(e.lastTimestamp) ??
		millis(e.eventTime) ??
		millis(e.firstTimestamp) ??
		millis(e.metadata?.creationTimestamp) ??
		0;
	if (now !== undefined && time > now + AUDIT_SKEW_ALLOWANCE_MS)
		time = now + AUDIT_SKEW_ALLOWANCE_MS;
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
		force: r.force,
		count: Math.max(r.count, auditCount(e.series?.count) ?? 1),
		target: r.target,
		detail: r.detail,
		message: str(e.message),
		name: str(e.metadata?.name, 253),
		instance: str(e.reportingInstance, 128),
	};
}

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

/** Who acted, with the identity named when it was another: `root@host (as nightshift)`. */
export function auditActorText(e: AuditEntry): string {
	return e.identity ? `${e.actor} (as ${e.identity})` : e.actor;
}
