/**
 * The console's audit feed: one list + watch of ctpool's Events (selected by their pool
 * label) in the namespace, kept in the store. Reading Events is optional (ctpool's Role may
 * not grant it): a refusal is shown where the audit and the refused-claims counts would be,
 * and everything else works.
 */

import type { Kube } from '../../kube/config.js';
import type { KubeObject } from '../../kube/objects.js';
import { startResilientWatch } from '../../kube/resilient-watch.js';
import { AUDIT_POOL_LABEL, auditEntry, type RawAuditEvent } from '../../pool/audit.js';
import { boundedObject } from '../model/bounded-object.js';
import type { ConsoleStore } from '../store/store.js';

/** A running audit feed. */
export interface AuditFeedHandle {
	stop(): void;
}

/** Starts following ctpool's Events in a namespace (absent: every namespace) into the store. */
export function startAuditFeed(
	kube: Kube,
	namespace: string | undefined,
	store: ConsoleStore,
): AuditFeedHandle {
	const entryOf = (o: KubeObject) => {
		// a time beyond the clock-skew allowance is clamped: a 2099 Event is not pinned on top
		const e = auditEntry(o as RawAuditEvent, Date.now());
		if (!e) return null;
		if (!e.namespace) e.namespace = namespace ?? '';
		// every string cut to the console's bound once, here (a huge note is only shown cut)
		return boundedObject(e);
	};
	store.getState().setAuditStatus('loading');
	const watch = startResilientWatch(
		kube,
		{ plural: 'events', kind: 'Event', apiVersion: 'v1', ...(namespace ? { namespace } : {}) },
		{ labelSelector: AUDIT_POOL_LABEL },
		{
			onReset(objects) {
				const reset = objects.flatMap((o) => entryOf(o) ?? []);
				store.getState().auditChange({ reset });
			},
			onChange(op, object) {
				if (op === 'delete') {
					const name = object.metadata?.name;
					if (name) store.getState().auditChange({ delete: name });
					return;
				}
				const e = entryOf(object);
				if (e) store.getState().auditChange({ upsert: e });
			},
			onState(state) {
				const s = store.getState();
				if (state.phase === 'synced') s.setAuditStatus('live');
				else if (state.phase === 'failed')
					s.setAuditStatus(/forbidden|403/i.test(state.reason) ? 'denied' : 'error', state.reason);
				else if (state.phase === 'reconnecting') s.setAuditStatus('error', state.lastError);
			},
		},
	);
	return { stop: () => watch.stop() };
}
