/**
 * Which objects under a member's name are the pool's. The one rule every writing path uses:
 * nothing is ours on a name alone.
 */

import { CT_LABEL, CT_NAME_LABEL, MEMBER_LABEL, POOL_LABEL, pvcName } from './names.js';
import type { PodObject, PvcObject } from './objects.js';

/** The kinds of object a member is made of. */
export type MemberObjectKind = 'pod' | 'PVC' | 'Lease' | 'Service';

/** What ownership looks at: labels, and a Service's selector. */
export interface OwnedCandidate {
	metadata: { labels?: Record<string, string> | undefined };
	spec?: unknown;
}

/**
 * True when the object, found under a member's name, is that member's: a pod, PVC or Lease
 * carries the pool label = pool and the member label = member; the console Service (Corral's
 * carries no labels) selects exactly `corral.dev/ct-name: <member>`.
 */
export function isPoolObject(
	pool: string,
	member: string,
	kind: MemberObjectKind,
	o: OwnedCandidate,
): boolean {
	if (kind === 'Service') {
		const selector = (o.spec as { selector?: Record<string, string> } | undefined)?.selector;
		if (!selector || typeof selector !== 'object') return false;
		const keys = Object.keys(selector);
		return keys.length === 1 && selector[CT_NAME_LABEL] === member;
	}
	const labels = o.metadata.labels ?? {};
	return labels[POOL_LABEL] === pool && labels[MEMBER_LABEL] === member;
}

/** The answer for objects under a member's name that are not the pool's (left alone). */
export function foreignMessage(member: string, kinds: readonly MemberObjectKind[]): string {
	const what = kinds.map((k) => `a ${k}`);
	const list =
		what.length <= 1
			? (what[0] ?? 'an object')
			: `${what.slice(0, -1).join(', ')} and ${what.at(-1)}`;
	return `${member}: ${list} of that name ${kinds.length > 1 ? 'are' : 'is'} not this pool's; ctpool will not touch ${kinds.length > 1 ? 'them' : 'it'} (rename or remove ${kinds.length > 1 ? 'them' : 'it'}, or use another pool name)`;
}

/**
 * True when a pod under a member's name is that member's pod started by Corral's own
 * `corral ct start` (or Corral's claim starting a stopped member): Corral's generatePod
 * labels it only `corral.dev/ct=true` and `corral.dev/ct-name=<member>`. It is the member's
 * when it carries those two labels and none of the pool's, and mounts that member's own data
 * PVC, the pool's (pool and member labels), and no other PVC nor a host path. ctpool adopts
 * such a pod (adds the pool's labels); any other unlabelled pod stays a stranger's.
 */
export function isCorralStartedPod(
	pool: string,
	member: string,
	pod: Pick<PodObject, 'metadata' | 'spec'>,
	pvc: Pick<PvcObject, 'metadata'> | null | undefined,
): boolean {
	if (pod.metadata.name !== member || !pvc) return false;
	if (pvc.metadata.name !== pvcName(member) || !isPoolObject(pool, member, 'PVC', pvc))
		return false;
	const labels = pod.metadata.labels ?? {};
	if (labels[CT_LABEL] !== 'true' || labels[CT_NAME_LABEL] !== member) return false;
	if (Object.hasOwn(labels, POOL_LABEL) || Object.hasOwn(labels, MEMBER_LABEL)) return false;
	const volumes = Array.isArray(pod.spec?.volumes) ? pod.spec.volumes : [];
	let mountsData = false;
	for (const v of volumes) {
		if (!v || typeof v !== 'object') return false;
		if (v.hostPath !== undefined) return false;
		const claim = v.persistentVolumeClaim;
		if (claim === undefined) continue;
		if (claim?.claimName !== pvcName(member)) return false;
		mountsData = true;
	}
	return mountsData;
}

/** What the Event and the answers say of a pod adopted from Corral's `ct start`. */
export function adoptedText(member: string): string {
	return `pod ${member} was started by Corral (corral ct start) on ${member}'s own PVC; it now carries the pool's labels`;
}
