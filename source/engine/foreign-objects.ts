/**
 * Objects under a member's name that are not the pool's: finding them (by name, since they
 * lack the pool's labels) and the error that names them. ctpool never touches them.
 */

import { isForbidden, isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import type { MemberObjects } from '../pool/member-state.js';
import { pvcName, serviceName } from '../pool/names.js';
import {
	foreignMessage,
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

/**
 * Looks by name for the pods and PVCs that the pool's label-selected list did not show, for
 * the members that lack theirs (Missing and Stopped ones, usually few): what it finds is not
 * the pool's. One GET per absent object.
 */
export async function probeForeign(
	ctx: EngineContext,
	pool: string,
	members: readonly MemberObjects[],
): Promise<Array<{ kind: MemberObjectKind; member: string }>> {
	const probes: Array<{ kind: 'pod' | 'PVC'; member: string }> = [];
	for (const m of members) {
		if (m.foreign?.length) continue;
		if (!m.pod) probes.push({ kind: 'pod', member: m.name });
		if (!m.pvc) probes.push({ kind: 'PVC', member: m.name });
	}
	const namespace = ctx.namespace;
	const found = await mapLimit(probes, ctx.concurrency, async (p) => {
		const name = p.kind === 'pod' ? p.member : pvcName(p.member);
		try {
			const o: OwnedCandidate = plainObject(
				p.kind === 'pod'
					? await ctx.kube.core.readNamespacedPod({ name, namespace })
					: await ctx.kube.core.readNamespacedPersistentVolumeClaim({ name, namespace }),
			);
			// One of the pool's made since the list is no stranger.
			return isPoolObject(pool, p.member, p.kind, o) ? null : p;
		} catch (err) {
			if (isNotFound(err)) return null;
			throw clusterError(err, {
				verb: 'get',
				resource: p.kind === 'pod' ? 'pods' : 'persistentvolumeclaims',
				namespace,
				name,
			});
		}
	});
	return found.filter((f): f is NonNullable<typeof f> => f !== null);
}
