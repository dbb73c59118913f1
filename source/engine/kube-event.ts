/**
 * Kubernetes Events on a member's PVC, so `kubectl get events` and `kubectl describe pvc`
 * show who did what. A failed Event write never fails the operation.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CoreV1Event } from '@kubernetes/client-node';
import { pvcName } from '../pool/names.js';
import type { EngineContext } from './context.js';

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

const pending = new WeakMap<EngineContext, Set<Promise<unknown>>>();

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
	const now = new Date(ctx.now());
	const involved = pvcName(member);
	const event: CoreV1Event = {
		apiVersion: 'v1',
		kind: 'Event',
		metadata: {
			name: `${involved}.${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`,
			namespace: ctx.namespace,
		},
		involvedObject: {
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
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
	let set = pending.get(ctx);
	if (!set) {
		set = new Set();
		pending.set(ctx, set);
	}
	const p: Promise<unknown> = ctx.kube.core
		.createNamespacedEvent({ namespace: ctx.namespace, body: event })
		.catch(() => undefined)
		.finally(() => set.delete(p));
	set.add(p);
}

/** Waits until every Event recorded so far under this context has been written or has failed. */
export async function flushKubeEvents(ctx: EngineContext): Promise<void> {
	const set = pending.get(ctx);
	if (!set || set.size === 0) return;
	await Promise.allSettled([...set]);
}
