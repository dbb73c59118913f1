/**
 * Events as the real components write them (core v1 Event): a repeated event bumps count and
 * lastTimestamp instead of piling up, so `kubectl get events` and `kubectl describe` read
 * like a real cluster's.
 */

import type { SimObject, SimStore } from '../store-api.js';
import type { ControllerErrors } from './controller-errors.js';
import { apiTime } from './pod-view.js';

/** Normal or Warning, as kubectl shows it in the TYPE column. */
export type EventType = 'Normal' | 'Warning';

/** Who reports an event: `default-scheduler`, or `kubelet` on a host. */
export interface EventSource {
	component: string;
	host?: string;
}

/** How many recorded events are kept; the oldest are deleted past it (real clusters use a TTL). */
const MAX_EVENTS = 10_000;

/** Writes Events for the controllers. */
export class EventRecorder {
	/** Dedup key -> event name, oldest first. */
	private readonly recent = new Map<string, { namespace: string; name: string }>();
	private counter = 0;

	constructor(
		private readonly store: SimStore,
		private readonly errors: ControllerErrors,
		private readonly max: number = MAX_EVENTS,
	) {}

	/** Records an event about obj; an identical recent one gets its count bumped. */
	record(
		obj: SimObject,
		type: EventType,
		reason: string,
		message: string,
		source: EventSource,
		fieldPath?: string,
	): void {
		try {
			this.write(obj, type, reason, message, source, fieldPath);
		} catch (err) {
			// A namespace being deleted (403) or gone (404) takes no new events; that is no fault.
			const code = (err as { code?: unknown } | null)?.code;
			if (code !== 403) this.errors.report(`event ${reason}`, err);
		}
	}

	private write(
		obj: SimObject,
		type: EventType,
		reason: string,
		message: string,
		source: EventSource,
		fieldPath?: string,
	): void {
		const namespace = obj.metadata.namespace ?? 'default';
		const uid = obj.metadata.uid ?? '';
		const key = [
			uid,
			obj.metadata.name,
			fieldPath ?? '',
			type,
			reason,
			message,
			source.component,
		].join('\u0000');
		const now = apiTime();
		const who = source.component === 'kubelet' ? 'system:kubelet' : `system:${source.component}`;
		const seen = this.recent.get(key);
		if (seen) {
			const ev = this.store.get('events', seen.namespace, seen.name);
			if (ev) {
				const next = structuredClone(ev) as SimObject & { count?: number; lastTimestamp?: string };
				next.count = (next.count ?? 1) + 1;
				next.lastTimestamp = now;
				this.store.update('events', next, { who });
				// Most recently used last, so the oldest are trimmed first.
				this.recent.delete(key);
				this.recent.set(key, seen);
				return;
			}
			this.recent.delete(key);
		}
		const name = `${obj.metadata.name}.${this.suffix()}`;
		const involved: Record<string, unknown> = {
			kind: obj.kind,
			namespace: obj.metadata.namespace,
			name: obj.metadata.name,
			uid: obj.metadata.uid,
			apiVersion: obj.apiVersion,
			resourceVersion: obj.metadata.resourceVersion,
		};
		if (fieldPath) involved.fieldPath = fieldPath;
		if (involved.namespace === undefined) delete involved.namespace;
		this.store.create(
			'events',
			{
				apiVersion: 'v1',
				kind: 'Event',
				metadata: { name, namespace },
				involvedObject: involved,
				reason,
				message,
				source: source.host
					? { component: source.component, host: source.host }
					: { component: source.component },
				firstTimestamp: now,
				lastTimestamp: now,
				count: 1,
				type,
				eventTime: null,
				reportingComponent: source.component,
				reportingInstance: source.host ?? '',
			},
			{ who },
		);
		this.recent.set(key, { namespace, name });
		this.trim();
	}

	/** A unique hex suffix, like the nanosecond timestamps real event names carry. */
	private suffix(): string {
		this.counter = (this.counter + 1) % 1_000_000;
		return (BigInt(Date.now()) * 1_000_000n + BigInt(this.counter)).toString(16);
	}

	private trim(): void {
		while (this.recent.size > this.max) {
			const first = this.recent.entries().next();
			if (first.done) return;
			const [key, where] = first.value;
			this.recent.delete(key);
			try {
				this.store.delete('events', where.namespace, where.name, { who: 'system:event-ttl' });
			} catch {
				// Already gone.
			}
		}
	}
}
