/** Listing a pool's pods, PVCs and Leases: three label-selector lists, no per-member reads. */

import { memberIndex, memberOfLease, memberOfPvc, POOL_LABEL } from '../pool/names.js';
import { type ObjectOfKind, readObject, readObjects } from '../pool/object-shape.js';
import type { LeaseObject, PodObject, PvcObject } from '../pool/objects.js';
import type { MemberObjectKind } from '../pool/ownership.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';

/** The pool's objects of each kind, as plain JSON. */
export interface ListedObjects {
	pods: PodObject[];
	pvcs: PvcObject[];
	leases: LeaseObject[];
	/**
	 * Objects under a member's name that do not read (pool/object-shape.ts): the member is
	 * left alone, as with a stranger's object, and each is named in problems.
	 */
	foreign?: Array<{ kind: MemberObjectKind; member: string }>;
	/** What is wrong with each object that does not read, one line each. */
	problems?: string[];
	/** The objects that do not read under a member's name: the member and the problem. */
	unreadable?: Array<{ member: string; problem: string }>;
}

/** What the objects that do not read leave behind (see ListedObjects). */
type Unread = Required<Pick<ListedObjects, 'foreign' | 'problems' | 'unreadable'>>;

const MEMBER_KIND = { pods: 'pod', persistentvolumeclaims: 'PVC', leases: 'Lease' } as const;

/** The member an object of a kind is named after, or null. */
function memberNamed(kind: keyof typeof MEMBER_KIND, name: string): string | null {
	if (kind === 'pods') return name;
	return kind === 'leases' ? memberOfLease(name) : memberOfPvc(name);
}

/**
 * The objects of one kind that read (readObjects); each one that does not is named in
 * problems and, under a member's name, blocks that member (foreign).
 */
function readListed<K extends keyof typeof MEMBER_KIND>(
	kind: K,
	raws: readonly unknown[],
	out: Unread,
): ObjectOfKind[K][] {
	const read = readObjects(kind, raws);
	if (read.problems.length === 0) return read.objects;
	let bad = 0;
	for (const raw of raws) {
		if (readObject(kind, raw).ok) continue;
		const problem = `${read.problems[bad++]}; ctpool leaves its member alone until it reads`;
		out.problems.push(problem);
		const name = (raw as { metadata?: { name?: unknown } } | null)?.metadata?.name;
		const member = typeof name === 'string' ? memberNamed(kind, name) : null;
		if (!member) continue;
		out.foreign.push({ kind: MEMBER_KIND[kind], member });
		out.unreadable.push({ member, problem });
	}
	return read.objects;
}

/** The label selector of one pool, or of every pool when pool is omitted. */
export function poolSelector(pool?: string): string {
	return pool === undefined ? POOL_LABEL : `${POOL_LABEL}=${pool}`;
}

/**
 * Lists the pods, PVCs and Leases of a pool (or of every pool) in the context's namespace;
 * the Leases include those named as a member's Lease that lack the pool's labels.
 */
export async function listPoolObjects(ctx: EngineContext, pool?: string): Promise<ListedObjects> {
	const namespace = ctx.namespace;
	const labelSelector = poolSelector(pool);
	// Raw JSON: the objects stay as the API serves them, without client-node's model classes
	// and the walk back to plain JSON (most of the CPU of a list of a big pool).
	const list = <T>(
		prefix: string,
		resource: string,
		what: string,
		selector: string | null = labelSelector,
	): Promise<T[]> =>
		ctx.kube
			.readJson<{ items?: T[] }>(
				`${prefix}/namespaces/${encodeURIComponent(namespace)}/${resource}`,
				selector === null ? {} : { labelSelector: selector },
			)
			.then(
				(answer) => answer.items ?? [],
				(err: unknown) => {
					throw clusterError(err, { verb: 'list', resource: what, namespace });
				},
			);
	// Leases unselected: one under a member's name without the pool's labels blocks that member
	// (its name is taken), so it must be seen to be reported. Leases are few in a namespace.
	const [rawPods, rawPvcs, rawLeases] = await Promise.all([
		list<unknown>('/api/v1', 'pods', 'pods'),
		list<unknown>('/api/v1', 'persistentvolumeclaims', 'persistentvolumeclaims'),
		list<unknown>('/apis/coordination.k8s.io/v1', 'leases', 'leases.coordination.k8s.io', null),
	]);
	return readListedObjects({ pods: rawPods, pvcs: rawPvcs, leases: rawLeases }, pool);
}

/**
 * The pool's objects from what three lists answered (pure): each object read at the boundary
 * (readListed); of the Leases, those of the pool (by label, or named after a member of it).
 */
export function readListedObjects(
	raw: { pods: unknown; pvcs: unknown; leases: unknown },
	pool?: string,
): ListedObjects {
	const unread: Unread = { foreign: [], problems: [], unreadable: [] };
	const pods = readListed('pods', arrayOf(raw.pods), unread);
	const pvcs = readListed('persistentvolumeclaims', arrayOf(raw.pvcs), unread);
	const ours = (l: unknown) => {
		const meta = (l as { metadata?: { labels?: unknown; name?: unknown } } | null)?.metadata;
		const labels = meta?.labels;
		const labelled =
			labels && typeof labels === 'object'
				? (labels as Record<string, unknown>)[POOL_LABEL]
				: undefined;
		if (labelled !== undefined && (pool === undefined || labelled === pool)) return true;
		const member = typeof meta?.name === 'string' ? memberOfLease(meta.name) : null;
		return member !== null && (pool === undefined || memberIndex(pool, member) !== null);
	};
	const leases = readListed('leases', arrayOf(raw.leases).filter(ours), unread);
	return { pods, pvcs, leases, ...(unread.problems.length > 0 ? unread : {}) };
}

/** A list's items: a list, or nothing (a forged answer's items may be anything). */
function arrayOf(v: unknown): unknown[] {
	return Array.isArray(v) ? v : [];
}
