/**
 * The audit trail: what every ctpool (console, CLI, reconciler, broker) did to the pools, read
 * back from the Kubernetes Events it wrote (see pool/audit.ts for their one format). Events
 * live as long as the cluster keeps them (an hour by default).
 */

import { getJson } from '../kube/api-request.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../kube/config.js';
import {
	AUDIT_POOL_LABEL,
	type AuditEntry,
	type AuditFilter,
	auditEntry,
	auditMatches,
	newestFirst,
	type RawAuditEvent,
} from '../pool/audit.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';

/** Where to read the audit trail. */
export interface AuditQuery extends AuditFilter {
	/** Every namespace the identity can list Events in (a cluster-wide list). */
	allNamespaces?: boolean;
}

/** The audit trail read from the cluster. */
export interface AuditTrail {
	/** Newest first, filtered. */
	entries: AuditEntry[];
	/** The time of the oldest ctpool Event the cluster still keeps (before filtering), or null. */
	oldest: number | null;
}

/** The label selector of ctpool's Events: of one pool, or of every pool. */
export function auditSelector(pool?: string): string {
	return pool ? `${AUDIT_POOL_LABEL}=${pool}` : AUDIT_POOL_LABEL;
}

/** Items per page of the Events list. */
const PAGE = 500;

/**
 * Lists ctpool's Events in the context's namespace (or every namespace) and returns the
 * audit lines that pass the filter, newest first. Throws a ClusterError when the list is
 * refused (Events list is an optional permission: the error says which).
 */
export async function readAudit(ctx: EngineContext, q: AuditQuery = {}): Promise<AuditTrail> {
	const path = q.allNamespaces
		? '/api/v1/events'
		: `/api/v1/namespaces/${encodeURIComponent(ctx.namespace)}/events`;
	const items: RawAuditEvent[] = [];
	let cont: string | undefined;
	try {
		do {
			const page = await getJson<{ items?: RawAuditEvent[]; metadata?: { continue?: string } }>(
				ctx.kube.config,
				path,
				{ labelSelector: auditSelector(q.pool), limit: PAGE, continue: cont },
				ctx.kube.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
				ctx.signal,
				{ retry: true },
			);
			items.push(...(page.items ?? []));
			cont = page.metadata?.continue || undefined;
		} while (cont);
	} catch (err) {
		throw clusterError(
			err,
			q.allNamespaces
				? { verb: 'list', resource: 'events' }
				: { verb: 'list', resource: 'events', namespace: ctx.namespace },
		);
	}
	let oldest: number | null = null;
	const entries: AuditEntry[] = [];
	const filter: AuditFilter = { ...q };
	if (!q.allNamespaces) filter.namespace = ctx.namespace;
	for (const item of items) {
		const e = auditEntry(item, ctx.now());
		if (!e) continue;
		if (!e.namespace) e.namespace = ctx.namespace;
		if (oldest === null || e.time < oldest) oldest = e.time;
		if (auditMatches(e, filter)) entries.push(e);
	}
	entries.sort(newestFirst);
	return { entries, oldest };
}
