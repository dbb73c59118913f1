/** One row of the members table: the pool model's member view plus what the console shows beside it. */

import {
	CT_SPEC_ANNOTATION,
	describeDrift,
	type MemberObjectKind,
	type MemberObjects,
	type MemberView,
	memberView,
	notFreeReason,
	type PoolSpec,
	type PoolStatus,
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
	/** The status the last reconcile recorded: its errors name objects the watches cannot see. */
	recorded?: PoolStatus | null;
}

/**
 * The recorded error about objects under the member's name that are not the pool's (found
 * by reconcile, which looks them up by name; the watches see only the pool's labels), with
 * the kinds it names; null when there is none.
 */
export function recordedForeign(
	errors: readonly string[] | undefined,
	member: string,
): { text: string; kinds: MemberObjectKind[] } | null {
	for (const e of errors ?? []) {
		const at = e.indexOf(`${member}: a`);
		if (at < 0 || !e.includes("not this pool's")) continue;
		if (at > 0 && !/\s$/.test(e.slice(0, at))) continue;
		const text = e.slice(at);
		const kinds = [...text.matchAll(/\ba (pod|PVC|Lease|Service)\b/g)].map(
			(m) => m[1] as MemberObjectKind,
		);
		return { text, kinds };
	}
	return null;
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
	let view = memberView(objects, { size, sourceHash: pool.sourceHash }, now);
	if (view.foreign.length === 0) {
		const seen = recordedForeign(pool.recorded?.errors, view.name);
		if (seen) view = { ...view, foreign: seen.kinds, free: false };
	}
	// What keeps the member from being used, said in its row: "desk-7: a pod of that name is
	// not this pool's; ctpool will not touch it", or a Lease whose times make no sense.
	if (view.foreign.length > 0 || view.leaseProblem)
		view = { ...view, message: notFreeReason(view) ?? '' };
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
