/**
 * Kubernetes Events on a member's PVC (or, for a step done to many members at once, one on
 * the pool's ConfigMap), so `kubectl get events` and `kubectl describe pvc` show who did
 * what. A failed Event write never fails the operation.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CoreV1Event } from '@kubernetes/client-node';
import { apiFailure } from '../kube/errors.js';
import { configMapName, pvcName } from '../pool/names.js';
import { failureText } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';

/** The reasons ctpool records. */
export type KubeEventReason =
	| 'Claimed'
	| 'Renewed'
	| 'Released'
	| 'Created'
	| 'Started'
	| 'Replaced'
	| 'Deleted'
	| 'TakenOver'
	| 'Maintenance'
	| 'ReconcileFailed'
	| 'ReleaseFailed'
	| 'ClaimFailed';

/** The component name Events carry. */
export const EVENT_COMPONENT = 'ctpool';

/**
 * Writes an Event about a member's PVC in the background. Call flushKubeEvents before the
 * operation returns, so that the write is done (or has failed) when the caller goes on.
 */
export function recordKubeEvent(
	ctx: EngineContext,
	member: string,
	reason: KubeEventReason,
	message: string,
	type: 'Normal' | 'Warning' = 'Normal',
): void {
	writeEvent(ctx, 'PersistentVolumeClaim', pvcName(member), reason, message, type);
}

/**
 * Writes one Event about the pool's ConfigMap in the background: a step done to many members
 * in one operation (`created desk-1..desk-500 (500 members)`), instead of one per member.
 */
export function recordPoolEvent(
	ctx: EngineContext,
	pool: string,
	reason: KubeEventReason,
	message: string,
): void {
	writeEvent(ctx, 'ConfigMap', configMapName(pool), reason, message, 'Normal');
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

function writeEvent(
	ctx: EngineContext,
	kind: 'PersistentVolumeClaim' | 'ConfigMap',
	involved: string,
	reason: KubeEventReason,
	message: string,
	type: 'Normal' | 'Warning',
): void {
	const now = new Date(ctx.now());
	const event: CoreV1Event = {
		apiVersion: 'v1',
		kind: 'Event',
		metadata: {
			name: `${involved}.${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`,
			namespace: ctx.namespace,
		},
		involvedObject: {
			apiVersion: 'v1',
			kind,
			name: involved,
			namespace: ctx.namespace,
		},
		reason,
		message: message.length > 1000 ? `${message.slice(0, 997)}...` : message,
		type,
		source: { component: EVENT_COMPONENT },
		reportingComponent: EVENT_COMPONENT,
		reportingInstance: hostname().slice(0, 128),
		firstTimestamp: now,
		lastTimestamp: now,
		count: 1,
	};
	const pending = ctx.caches.pendingEvents;
	let set = pending.get(ctx);
	if (!set) {
		set = new Set();
		pending.set(ctx, set);
	}
	const p: Promise<unknown> = ctx.kube.core
		.createNamespacedEvent({ namespace: ctx.namespace, body: event })
		.catch((err) => reportDenied(ctx, err))
		.finally(() => set.delete(p));
	set.add(p);
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

/** Waits until every Event recorded so far under this context has been written or has failed. */
export async function flushKubeEvents(ctx: EngineContext): Promise<void> {
	const set = ctx.caches.pendingEvents.get(ctx);
	if (!set || set.size === 0) return;
	await Promise.allSettled([...set]);
}
