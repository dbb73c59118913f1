/** One row of the members table: the pool model's member view plus what the console shows beside it. */

import {
	CT_SPEC_ANNOTATION,
	describeDrift,
	type MemberObjects,
	type MemberView,
	memberView,
	type PoolSpec,
	SOURCE_FIELDS,
	type SourceFields,
	sourceFields,
} from '../pool/index.js';

/** A member as the console shows it. */
export interface MemberRow extends MemberView {
	/** What drifted, e.g. `image a -> b` (empty when not drifted). */
	drift: string[];
	/** The pod's phase ('' without a pod). */
	podPhase: string;
	/** The pool is privileged, so the console is the chroot form. */
	privileged: boolean;
}

/** What a member row needs to know of its pool. */
export interface RowPool {
	spec: PoolSpec | null;
	sourceHash: string | null;
}

/** The source fields a member was built from, read from its PVC's CT spec annotation. */
export function memberSource(objects: MemberObjects): Partial<SourceFields> | null {
	const text = objects.pvc?.metadata.annotations?.[CT_SPEC_ANNOTATION];
	if (!text) return null;
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return null;
	}
	if (!raw || typeof raw !== 'object') return null;
	const o = raw as Record<string, unknown>;
	const out: Partial<Record<keyof SourceFields, unknown>> = {};
	for (const key of SOURCE_FIELDS) if (o[key] !== undefined) out[key] = o[key];
	return out as Partial<SourceFields>;
}

/** Derives the row of one member (the rules are the pool model's; this only adds detail). */
export function memberRow(objects: MemberObjects, pool: RowPool, now: number): MemberRow {
	// Without a readable definition nothing is above size (nothing may be deleted for it).
	const size = pool.spec?.size ?? Number.MAX_SAFE_INTEGER;
	const view = memberView(objects, { size, sourceHash: pool.sourceHash }, now);
	let drift: string[] = [];
	if (view.drifted && pool.spec) {
		drift = describeDrift(memberSource(objects), sourceFields(pool.spec));
		if (drift.length === 0)
			drift = [`source ${view.sourceHash || 'none'} -> ${pool.sourceHash ?? '?'}`];
	}
	return {
		...view,
		drift,
		podPhase: objects.pod?.status?.phase ?? '',
		privileged: pool.spec?.privileged ?? false,
	};
}
