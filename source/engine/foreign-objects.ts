/**
 * Objects under a member's name that are not the pool's: finding them (by name, since they
 * lack the pool's labels) and the error that names them. ctpool never touches them.
 */

import { isForbidden, isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import type { MemberObjects } from '../pool/member-state.js';
import { pvcName, serviceName } from '../pool/names.js';
import type { PodObject } from '../pool/objects.js';
import {
	foreignMessage,
	isCorralStartedPod,
	isPoolObject,
	type MemberObjectKind,
	type OwnedCandidate,
} from '../pool/ownership.js';
import { mapLimit } from './bounded-map.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';

/** Objects under a member's name that are not the pool's: the member is left alone. */
export class ForeignObjectError extends PoolError {
	readonly member: string;
	readonly kinds: MemberObjectKind[];
	constructor(member: string, kinds: MemberObjectKind[]) {
		super('failed', foreignMessage(member, kinds));
		this.member = member;
		this.kinds = kinds;
	}
}

/** Throws ForeignObjectError when any of the objects found under the member's name is not the pool's. */
export function checkOwned(
	pool: string,
	member: string,
	found: ReadonlyArray<[MemberObjectKind, OwnedCandidate | null | undefined]>,
): void {
	const kinds = found
		.filter(([kind, o]) => o && !isPoolObject(pool, member, kind, o))
		.map(([kind]) => kind);
	if (kinds.length > 0) throw new ForeignObjectError(member, kinds);
}

/** The member's console Service as read now: null when absent, 'unreadable' without get rights. */
export async function readService(
	ctx: EngineContext,
	member: string,
): Promise<
	(OwnedCandidate & { metadata: { uid?: string; resourceVersion?: string } }) | null | 'unreadable'
> {
	const name = serviceName(member);
	try {
		return plainObject(
			await ctx.kube.core.readNamespacedService({ name, namespace: ctx.namespace }),
		);
	} catch (err) {
		if (isNotFound(err)) return null;
		// The seed's permissions allow only deleting Services: one that cannot be read cannot be
		// shown to be the member's, so it is left alone.
		if (isForbidden(err)) return 'unreadable';
		throw clusterError(err, { verb: 'get', resource: 'services', namespace: ctx.namespace, name });
	}
}

/** What a look by name found: strangers' objects, and members' pods Corral started. */
export interface Probed {
	foreign: Array<{ kind: MemberObjectKind; member: string }>;
	/** Pods under a member's name that Corral's `ct start` made on its PVC (not adopted yet). */
	corralPods: PodObject[];
}

/**
 * Looks by name for the pods and PVCs that the pool's label-selected list did not show, for
 * the members that lack theirs (Missing and Stopped ones, usually few): what it finds is not
 * the pool's, except a member's pod started by Corral (`corral ct start`), which is the
 * member's (reconcile adopts it). One GET per absent object.
 */
export async function probeForeign(
	ctx: EngineContext,
	pool: string,
	members: readonly MemberObjects[],
): Promise<Probed> {
	const probes: Array<{ kind: 'pod' | 'PVC'; member: MemberObjects }> = [];
	for (const m of members) {
		if (m.foreign?.length) continue;
		if (!m.pod) probes.push({ kind: 'pod', member: m });
		if (!m.pvc) probes.push({ kind: 'PVC', member: m });
	}
	const namespace = ctx.namespace;
	const out: Probed = { foreign: [], corralPods: [] };
	await mapLimit(probes, ctx.concurrency, async (p) => {
		const member = p.member.name;
		const name = p.kind === 'pod' ? member : pvcName(member);
		try {
			const o = plainObject<PodObject>(
				p.kind === 'pod'
					? await ctx.kube.core.readNamespacedPod({ name, namespace })
					: await ctx.kube.core.readNamespacedPersistentVolumeClaim({ name, namespace }),
			);
			// One of the pool's made since the list is no stranger.
			if (isPoolObject(pool, member, p.kind, o)) return;
			if (p.kind === 'pod' && isCorralStartedPod(pool, member, o, p.member.pvc))
				out.corralPods.push(o);
			else out.foreign.push({ kind: p.kind, member });
		} catch (err) {
			if (isNotFound(err)) return;
			throw clusterError(err, {
				verb: 'get',
				resource: p.kind === 'pod' ? 'pods' : 'persistentvolumeclaims',
				namespace,
				name,
			});
		}
	});
	return out;
}
