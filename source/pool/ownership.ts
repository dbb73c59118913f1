/**
 * Which objects under a member's name are the pool's. The one rule every writing path uses:
 * nothing is ours on a name alone.
 */

import { CT_NAME_LABEL, MEMBER_LABEL, POOL_LABEL } from './names.js';

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
