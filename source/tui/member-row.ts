/** One row of the members table: the pool model's member view plus what the console shows beside it. */

import {
	type MemberObjects,
	type MemberView,
	memberView,
	type PoolSpec,
	pvcCtSpec,
	sourceFields,
} from '../pool/index.js';

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
}

/** Derives the row of one member (the rules are the pool model's; this only adds detail). */
export function memberRow(objects: MemberObjects, pool: RowPool, now: number): MemberRow {
	// Without a readable definition nothing is above size (nothing may be deleted for it).
	const size = pool.spec?.size ?? Number.MAX_SAFE_INTEGER;
	const source = pool.spec ? sourceFields(pool.spec) : null;
	const view = memberView(objects, { size, sourceHash: pool.sourceHash, source }, now);
	// The console of a member follows its own CT spec, as Corral's `ct console` does.
	const own = objects.pvc ? pvcCtSpec(objects.pvc) : null;
	return {
		...view,
		podPhase: objects.pod?.status?.phase ?? '',
		privileged: own?.ct.privileged ?? pool.spec?.privileged ?? false,
	};
}
