/** The audit log of the simulated cluster: every mutation and every request, for tests to check. */

import type { StoreWrite } from './store.js';

/** One mutation: a store write, or a mutating request that failed or changed nothing. */
export interface AuditMutation {
	/** Position in the log (for mark/since). */
	seq: number;
	/** ISO time with milliseconds. */
	time: string;
	/** create, update, patch, delete, deletecollection. */
	verb: string;
	/** Plural resource ('pods'). */
	resource: string;
	namespace?: string;
	name: string;
	/** The resourceVersion written ('' when nothing was written). */
	resourceVersion: string;
	/** HTTP code of the request (201/200 for writes that succeeded). */
	code: number;
	/** Who: the User-Agent's first product token ('kubectl', 'ctpool') or a controller ('system:kubelet'). */
	who: string;
	/** Whether the store changed. */
	changed: boolean;
}

/** One HTTP request. */
export interface AuditRequest {
	seq: number;
	time: string;
	method: string;
	/** get, list, watch, create, update, patch, delete, deletecollection, exec, discovery, other. */
	verb: string;
	resource?: string;
	subresource?: string;
	namespace?: string;
	name?: string;
	path: string;
	who: string;
	code: number;
}

/** What happened after a mark. */
export interface AuditSince {
	requests: AuditRequest[];
	mutations: AuditMutation[];
}

interface RequestScope {
	verb: string;
	resource: string;
	namespace?: string;
	name?: string;
	who: string;
	code: number;
}

/** The first product token of a User-Agent: `kubectl/v1.32.4 (linux/amd64)` -> `kubectl`. */
export function whoFromUserAgent(ua: string | undefined): string {
	if (!ua) return 'unknown';
	const token = ua.trim().split(/[\s/]/, 1)[0] ?? '';
	return token || 'unknown';
}

/** An append-only log (the oldest entries go beyond `cap` entries per list). */
export class AuditLog {
	private seq = 0;
	private readonly mutationLog: AuditMutation[] = [];
	private readonly requestLog: AuditRequest[] = [];
	private scope: RequestScope | undefined;
	private readonly cap: number;

	constructor(cap = 200_000) {
		this.cap = cap;
	}

	/** Every mutation so far (a copy). */
	mutations(): AuditMutation[] {
		return [...this.mutationLog];
	}

	/** Every request so far (a copy). */
	requests(): AuditRequest[] {
		return [...this.requestLog];
	}

	/** A mark: pass it to since() to see what happened after this moment. */
	mark(): number {
		return this.seq;
	}

	/** The requests and mutations after a mark. */
	since(mark: number): AuditSince {
		return {
			requests: this.requestLog.filter((r) => r.seq > mark),
			mutations: this.mutationLog.filter((m) => m.seq > mark),
		};
	}

	private push<T>(list: T[], item: T): void {
		list.push(item);
		if (list.length > this.cap) list.splice(0, list.length - this.cap);
	}

	/** Records a store write (wired to Store.onWrite by the server). */
	recordWrite(w: StoreWrite): void {
		const s = this.scope;
		const own =
			s !== undefined &&
			s.resource === w.resource &&
			s.name === w.name &&
			(s.namespace ?? '') === (w.namespace ?? '');
		this.push(this.mutationLog, {
			seq: ++this.seq,
			time: new Date().toISOString(),
			verb: own ? s.verb : w.verb,
			resource: w.resource,
			...(w.namespace ? { namespace: w.namespace } : {}),
			name: w.name,
			resourceVersion: String(w.revision),
			code: own ? s.code : w.verb === 'create' ? 201 : 200,
			who: w.who ?? 'system:unknown',
			changed: true,
		});
	}

	/** Runs a mutating request's store call, naming its verb in the writes it makes. */
	within<T>(scope: RequestScope, fn: () => T): T {
		const prev = this.scope;
		this.scope = scope;
		try {
			return fn();
		} finally {
			this.scope = prev;
		}
	}

	/** Records a mutating request that failed or changed nothing. */
	recordUnchanged(scope: RequestScope, resourceVersion: string): void {
		this.push(this.mutationLog, {
			seq: ++this.seq,
			time: new Date().toISOString(),
			verb: scope.verb,
			resource: scope.resource,
			...(scope.namespace ? { namespace: scope.namespace } : {}),
			name: scope.name ?? '',
			resourceVersion,
			code: scope.code,
			who: scope.who,
			changed: false,
		});
	}

	/** Records one HTTP request. */
	recordRequest(r: Omit<AuditRequest, 'seq' | 'time'>): void {
		this.push(this.requestLog, { seq: ++this.seq, time: new Date().toISOString(), ...r });
	}
}
