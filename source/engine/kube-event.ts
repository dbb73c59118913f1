/**
 * Kubernetes Events on a member's PVC (or, for a step done to many members at once, one on
 * the pool's ConfigMap), so `kubectl get events` and `kubectl describe pvc` show who did
 * what. A failed Event write never fails the operation.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CoreV1Event } from '@kubernetes/client-node';
import { apiFailure } from '../kube/errors.js';
import { authenticatedUser } from '../kube/whoami.js';
import {
	AUDIT_ANNOTATION,
	AUDIT_POOL_LABEL,
	AUDIT_REASON,
	AUDIT_RECORD_VERSION,
	type AuditAction,
	type AuditRecord,
	auditNote,
	auditType,
	normalRecord,
} from '../pool/audit.js';
import { configMapName, leaseName, pvcName } from '../pool/names.js';
import { failureText } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';

/** The component name Events carry. */
export const EVENT_COMPONENT = 'ctpool';

/** An act to record: the audit record, its actor defaulting to the context's. */
export type AuditAct = Omit<AuditRecord, 'actor' | 'pool'> & { actor?: string };

/**
 * Writes the Event of one act in the background, in the one format (see pool/audit.ts):
 * about the member's PVC, or the pool's ConfigMap for an act on the pool or on many members.
 * Call flushKubeEvents before the operation returns, so that the write is done (or has
 * failed) when the caller goes on.
 */
export function recordAudit(ctx: EngineContext, pool: string, act: AuditAct): void {
	const record = normalRecord({
		...act,
		pool,
		actor: act.actor ?? ctx.actor,
		...(ctx.auditPass ? { pass: ctx.auditPass } : {}),
	});
	const [kind, involved] = record.member
		? (['PersistentVolumeClaim', pvcName(record.member)] as const)
		: (['ConfigMap', configMapName(pool)] as const);
	writeEvent(ctx, kind, involved, record);
}

/** How long the member list of a pool Event may get (an Event message is cut at 1,000). */
const RANGES_MAX_CHARS = 800;

/**
 * The members named compactly, runs of consecutive indexes as ranges:
 * `desk-1..desk-3, desk-7 (4 members)`; a single member is just its name.
 */
export function memberRanges(members: ReadonlyArray<{ name: string; index: number }>): string {
	const sorted = [...members].sort((a, b) => a.index - b.index);
	if (sorted.length === 1) return sorted[0]!.name;
	const parts: string[] = [];
	for (let i = 0; i < sorted.length; ) {
		let j = i;
		while (j + 1 < sorted.length && sorted[j + 1]!.index === sorted[j]!.index + 1) j++;
		const first = sorted[i]!.name;
		const last = sorted[j]!.name;
		parts.push(i === j ? first : j === i + 1 ? `${first}, ${last}` : `${first}..${last}`);
		i = j + 1;
	}
	let list = parts.join(', ');
	if (list.length > RANGES_MAX_CHARS)
		list = `${list.slice(0, list.lastIndexOf(', ', RANGES_MAX_CHARS))}, ...`;
	return `${list} (${sorted.length} members)`;
}

/** The Lease an act on a claim is related to. */
const CLAIM_ACTIONS: ReadonlySet<AuditAction> = new Set([
	'claim',
	'renew',
	'release',
	'release-failed',
]);

function writeEvent(
	ctx: EngineContext,
	kind: 'PersistentVolumeClaim' | 'ConfigMap',
	involved: string,
	record: AuditRecord,
): void {
	const now = new Date(ctx.now());
	// the authenticated user is asked once per process (a failed review: not recorded)
	afterAnswer(ctx, () =>
		authenticatedUser(ctx.kube)
			.then((user) =>
				ctx.kube.core.createNamespacedEvent({
					namespace: ctx.namespace,
					body: eventBody(ctx, kind, involved, user ? { ...record, user } : record, now),
				}),
			)
			.catch((err) => reportDenied(ctx, err)),
	);
}

/**
 * The longest a write after an answer waits for the engine's claims under way to answer
 * (ms): in a burst of claims (a broker at the start of a shift) the answers go first, and the
 * display copies and Events follow within this.
 */
export const AFTER_ANSWER_WAIT_MS = 1_000;

/**
 * Runs answering (a claim up to its answer) counted among the engine's claims under way, which
 * writes after an answer wait for (AFTER_ANSWER_WAIT_MS at most).
 */
export async function answering<T>(ctx: EngineContext, run: () => Promise<T>): Promise<T> {
	const caches = ctx.caches;
	caches.answering.count++;
	try {
		return await run();
	} finally {
		if (--caches.answering.count === 0) {
			const woken = caches.answering.waiters;
			caches.answering.waiters = [];
			for (const wake of woken) wake();
		}
	}
}

/** Resolves once no claim of the engine is under way, or after AFTER_ANSWER_WAIT_MS. */
function claimsAnswered(ctx: EngineContext): Promise<void> {
	const { answering } = ctx.caches;
	if (answering.count === 0) return Promise.resolve();
	return new Promise<void>((resolve) => {
		const timer = setTimeout(resolve, AFTER_ANSWER_WAIT_MS);
		timer.unref?.();
		answering.waiters.push(() => {
			clearTimeout(timer);
			resolve();
		});
	});
}

/**
 * Starts a write that may finish after the operation answered (an Event, a cache-fed claim's
 * display copy) once the engine's claims under way have answered (answering), and keeps it
 * among the context's pending writes: flushKubeEvents waits for it. The write must not reject
 * (it reports its own failure).
 */
export function afterAnswer(ctx: EngineContext, start: () => Promise<unknown>): void {
	const write = claimsAnswered(ctx).then(start);
	const pending = ctx.caches.pendingEvents;
	let set = pending.get(ctx);
	if (!set) {
		set = new Set();
		pending.set(ctx, set);
	}
	const all = ctx.caches.pendingWrites;
	const p: Promise<unknown> = write.finally(() => {
		set.delete(p);
		all.delete(p);
	});
	set.add(p);
	all.add(p);
}

/**
 * Waits until every write the engine's operations left after their answer (Events, a cache-fed
 * claim's display copy) so far has been done or has failed: a process that claims from a cache
 * calls it before it exits.
 */
export async function flushEngineWrites(ctx: EngineContext): Promise<void> {
	await Promise.allSettled([...ctx.caches.pendingWrites]);
}

/** The Event of one audited act, in the one format. */
function eventBody(
	ctx: EngineContext,
	kind: 'PersistentVolumeClaim' | 'ConfigMap',
	involved: string,
	record: AuditRecord,
	now: Date,
): CoreV1Event {
	const event: CoreV1Event = {
		apiVersion: 'v1',
		kind: 'Event',
		metadata: {
			name: `${involved}.${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`,
			namespace: ctx.namespace,
			labels: { [AUDIT_POOL_LABEL]: record.pool },
			annotations: {
				[AUDIT_ANNOTATION]: JSON.stringify({ v: AUDIT_RECORD_VERSION, ...record }),
			},
		},
		involvedObject: {
			apiVersion: 'v1',
			kind,
			name: involved,
			namespace: ctx.namespace,
		},
		reason: AUDIT_REASON[record.action],
		action: record.action,
		message: auditNote(record),
		type: auditType(record.action),
		source: { component: EVENT_COMPONENT },
		reportingComponent: EVENT_COMPONENT,
		reportingInstance: hostname().slice(0, 128),
		firstTimestamp: now,
		lastTimestamp: now,
		count: record.count ?? 1,
	};
	if (record.member && CLAIM_ACTIONS.has(record.action))
		event.related = {
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			name: leaseName(record.member),
			namespace: ctx.namespace,
		};
	return event;
}

/** The action of the engine event that says Event writes are denied. */
export const EVENTS_DENIED_ACTION = 'events';

/**
 * A denied Event write (403) is said once per engine through the context's sink, as an
 * `info` event of action `events`; Events are optional (the seed's permissions have none), so
 * it never fails an operation. Other failures of an Event write are dropped.
 */
function reportDenied(ctx: EngineContext, err: unknown): void {
	if (ctx.caches.eventsDeniedReported || apiFailure(err)?.code !== 403) return;
	ctx.caches.eventsDeniedReported = true;
	emitEvent(ctx, {
		pool: '',
		action: EVENTS_DENIED_ACTION,
		outcome: 'info',
		message: `Kubernetes Events are not recorded: ${failureText(err, { verb: 'create', resource: 'events', namespace: ctx.namespace })}; ctpool works without them (grant create on events to record who did what)`,
	});
}

/**
 * The context of one reconcile pass: the outer context with a new pass id (16 hex digits),
 * which every audit Event of the pass carries. It shares the outer context's pending Event
 * writes, so flushKubeEvents on either waits for the pass's Events.
 */
export function passContext(outer: EngineContext): EngineContext {
	const ctx: EngineContext = { ...outer, auditPass: randomBytes(8).toString('hex') };
	const pending = outer.caches.pendingEvents;
	let set = pending.get(outer);
	if (!set) {
		set = new Set();
		pending.set(outer, set);
	}
	pending.set(ctx, set);
	return ctx;
}

/** Waits until every Event (and other write after the answer) recorded so far under this context has been written or has failed. */
export async function flushKubeEvents(ctx: EngineContext): Promise<void> {
	const set = ctx.caches.pendingEvents.get(ctx);
	if (!set || set.size === 0) return;
	await Promise.allSettled([...set]);
}

/**
 * Refused claims are rate-limited per engine, pool and identity: the first refusal writes
 * its Event at once; the ones within the next REFUSAL_WINDOW_MS are tallied, and written as
 * one Event whose count (and audit record's count) says how many it stands for: at the next
 * refusal after the window, or when the window ends (a timer that does not keep the process
 * alive). A storm of refusals is so at most one Event per identity per window.
 */
export const REFUSAL_WINDOW_MS = 60_000;

/** The most (pool, identity) pairs whose refusals are tallied at once; the oldest are dropped. */
const REFUSAL_KEYS_MAX = 1000;

/** The refusals of one identity in one pool since its last ClaimRefused Event. */
export interface RefusalTally {
	last: number;
	suppressed: number;
	detail: string;
	timer: NodeJS.Timeout | null;
}

/** Records a claim refused for want of free members (a ClaimRefused Warning on the pool's ConfigMap). */
export function recordRefusal(
	ctx: EngineContext,
	pool: string,
	identity: string,
	detail: string,
): void {
	const byKey = ctx.caches.refusals;
	const key = JSON.stringify([ctx.namespace, pool, identity]);
	const now = ctx.now();
	const tally = byKey.get(key);
	const write = (count: number, text: string) =>
		recordAudit(ctx, pool, {
			action: 'claim-refused',
			holder: identity,
			count,
			detail: text,
		});
	if (tally && now - tally.last < REFUSAL_WINDOW_MS) {
		tally.suppressed++;
		tally.detail = detail;
		tally.timer ??= setTimeout(
			() => {
				tally.timer = null;
				if (tally.suppressed === 0) return;
				write(tally.suppressed, tally.detail);
				tally.suppressed = 0;
				tally.last = ctx.now();
			},
			Math.max(0, REFUSAL_WINDOW_MS - (now - tally.last)),
		).unref();
		return;
	}
	const count = 1 + (tally?.suppressed ?? 0);
	if (tally?.timer) clearTimeout(tally.timer);
	byKey.delete(key);
	byKey.set(key, { last: now, suppressed: 0, detail, timer: null });
	if (byKey.size > REFUSAL_KEYS_MAX) byKey.delete(byKey.keys().next().value as string);
	write(count, detail);
}
