/** One row of the members table: the pool model's member view plus what the console shows beside it. */

import {
	CT_SPEC_ANNOTATION,
	type MemberObjectKind,
	type MemberObjects,
	type MemberView,
	memberView,
	notFreeReason,
	type PoolSpec,
	type PoolStatus,
	pvcCtSpec,
	sourceFields,
} from '../../pool/index.js';

/** A member as the console shows it (its `drift` says what differs). */
export interface MemberRow extends MemberView {
	/** The pod's phase ('' without a pod). */
	podPhase: string;
	/** The member is privileged (its CT spec, else the pool's), so the console is the chroot form. */
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

/**
 * The older Corral claim the recorded status names for the member (reconcile reads its Lease,
 * which the watches do not see): its holder and object; null when there is none.
 */
export function recordedOlderClaim(
	errors: readonly string[] | undefined,
	member: string,
): { corralHolder: string; corralClaim: string } | null {
	const head = `${member}: claimed by `;
	for (const e of errors ?? []) {
		if (!e.startsWith(head)) continue;
		const m = /^(.*) through an older Corral broker's claim \((.*?)\);/.exec(e.slice(head.length));
		if (m) return { corralHolder: m[1]!, corralClaim: m[2]! };
	}
	return null;
}

/** Derives the row of one member (the rules are the pool model's; this only adds detail). */
export function memberRow(objects: MemberObjects, pool: RowPool, now: number): MemberRow {
	// Without a readable definition nothing is above size (nothing may be deleted for it).
	const size = pool.spec?.size ?? Number.MAX_SAFE_INTEGER;
	const source = pool.spec ? sourceOf(pool.spec) : null;
	const waves = pool.spec?.maxUnavailable !== undefined;
	let view = memberView(objects, { size, sourceHash: pool.sourceHash, source, waves }, now);
	if (view.foreign.length === 0) {
		const seen = recordedForeign(pool.recorded?.errors, view.name);
		if (seen) view = { ...view, foreign: seen.kinds, free: false };
	}
	// An older Corral claim's Lease is not watched (no pool label): the status names it.
	if (!view.corralClaim) {
		const older = recordedOlderClaim(pool.recorded?.errors, view.name);
		if (older) view = { ...view, ...older, free: false };
	}
	// What keeps the member from being used, said in its row: "desk-7: a pod of that name is
	// not this pool's; ctpool will not touch it", or a Lease whose times make no sense.
	if (view.foreign.length > 0 || view.leaseProblem || view.corralClaim)
		view = { ...view, message: notFreeReason(view) ?? '' };
	// The console of a member follows its own CT spec, as Corral's `ct console` does.
	const own = objects.pvc ? ownPrivileged(objects.pvc) : undefined;
	// the view is this row's own (made just above): completed in place, not copied
	const row = view as MemberRow;
	row.podPhase = objects.pod?.status?.phase ?? '';
	row.privileged = own ?? pool.spec?.privileged ?? false;
	return row;
}

/** The source fields of a definition, one object per definition (podDrift keeps by it). */
const sourceBySpec = new WeakMap<PoolSpec, ReturnType<typeof sourceFields>>();
function sourceOf(spec: PoolSpec): ReturnType<typeof sourceFields> {
	let source = sourceBySpec.get(spec);
	if (!source) {
		source = sourceFields(spec);
		sourceBySpec.set(spec, source);
	}
	return source;
}

/**
 * Whether a PVC's own CT spec says privileged (undefined: it says nothing readable), read once
 * per annotation text: the watch hands over a new object for every change, every list and
 * definition change derives every row again, and the members of a pool share one text (a list
 * of 10,000 PVCs parsed it 10,000 times). At most PRIVILEGED_TEXTS texts are kept.
 */
const privilegedByText = new Map<string, boolean | undefined>();
const PRIVILEGED_TEXTS = 256;
function ownPrivileged(pvc: NonNullable<MemberObjects['pvc']>): boolean | undefined {
	const text = pvc.metadata?.annotations?.[CT_SPEC_ANNOTATION];
	// the privileged flag is the annotation's alone (pvcCtSpec adds only disk and storage class)
	if (typeof text !== 'string') return pvcCtSpec(pvc)?.ct.privileged;
	if (privilegedByText.has(text)) return privilegedByText.get(text);
	const own = pvcCtSpec(pvc)?.ct.privileged;
	if (privilegedByText.size >= PRIVILEGED_TEXTS) privilegedByText.clear();
	privilegedByText.set(text, own);
	return own;
}
