/**
 * Refused claims as the reconciler counts them: one list + watch of ctpool's Events (selected
 * by their pool label) in the namespace or every namespace. Claims are refused by other
 * processes (CLI, console, brokers); each writes a ClaimRefused Event whose audit record says
 * how many refusals it stands for. Only what arrives after the first list is counted (the
 * counter starts at 0 with the process, as Prometheus counters do); an Event seen again after
 * a relist counts only the rise of its count. Reading Events is optional: when it is denied,
 * the counter stays absent and readiness does not wait for this watch.
 */

import type { Kube } from '../kube/config.js';
import type { ConnectionState } from '../kube/connection-state.js';
import type { KubeObject } from '../kube/objects.js';
import { type ResilientWatch, startResilientWatch } from '../kube/resilient-watch.js';
import { AUDIT_POOL_LABEL, auditEntry, type RawAuditEvent } from '../pool/audit.js';
import { poolNameProblem } from '../pool/names.js';
import { poolKey } from './pool-cache.js';

/** What the refusal tally reports. */
export interface RefusalSink {
	/** `count` more claims of the pool (a pool key) were refused. */
	refused(key: string, count: number): void;
}

/**
 * The refusal count of each ClaimRefused Event seen, so that relists and updates add only
 * what is new. The first reset is the baseline: nothing in it is counted.
 */
export class RefusalTally {
	private readonly seen = new Map<string, number>();
	private baseline = false;

	/** Makes a tally; `namespace` is the watched one (absent: every namespace). */
	constructor(
		private readonly sink: RefusalSink,
		private readonly namespace?: string,
	) {}

	/** A full list: counts Events new since the last one (none on the first) and rises. */
	reset(objects: KubeObject[]): void {
		const before = new Map(this.seen);
		this.seen.clear();
		for (const o of objects) this.take(o, before);
		this.baseline = true;
	}

	/** One Event created or changed. */
	upsert(object: KubeObject): void {
		this.take(object, this.seen);
	}

	/** One Event gone (its time to live ended). */
	delete(object: KubeObject): void {
		this.seen.delete(this.idOf(object));
	}

	private idOf(o: KubeObject): string {
		return `${o.metadata?.namespace ?? this.namespace ?? ''}/${o.metadata?.name ?? ''}`;
	}

	private take(o: KubeObject, before: Map<string, number>): void {
		const e = auditEntry(o as RawAuditEvent);
		if (e?.action !== 'claim-refused' || !e.name || poolNameProblem(e.pool)) return;
		const id = this.idOf(o);
		const was = before.get(id);
		this.seen.set(id, Math.max(e.count, was ?? 0));
		if (!this.baseline) return;
		const rise = was === undefined ? e.count : e.count - was;
		if (rise > 0) this.sink.refused(poolKey(e.namespace || this.namespace || '', e.pool), rise);
	}
}

/** Settings of a refusal watch. */
export interface RefusalWatchOptions {
	/** The namespace; absent = every namespace. */
	namespace?: string;
	/** One pool only; absent = every pool. */
	pool?: string;
	/** Where the counts go. */
	sink: RefusalSink;
	/** The watch's connection state changed. */
	onState?(state: ConnectionState): void;
}

/** Starts counting refused claims from ctpool's Events; runs until stop(). */
export function startRefusalWatch(kube: Kube, opts: RefusalWatchOptions): ResilientWatch {
	const tally = new RefusalTally(opts.sink, opts.namespace);
	return startResilientWatch(
		kube,
		{
			plural: 'events',
			kind: 'Event',
			apiVersion: 'v1',
			...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
		},
		{
			labelSelector:
				opts.pool !== undefined ? `${AUDIT_POOL_LABEL}=${opts.pool}` : AUDIT_POOL_LABEL,
		},
		{
			onReset: (objects) => tally.reset(objects),
			onChange: (op, object) => (op === 'delete' ? tally.delete(object) : tally.upsert(object)),
			onState: (state) => opts.onState?.(state),
		},
	);
}
