/** Creating, starting, reading and destroying one member's objects. */

import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { PoolError } from '../pool/errors.js';
import { CT_SPEC_ANNOTATION, POOL_LABEL, pvcName, serviceName } from '../pool/names.js';
import type { PodObject, PvcObject } from '../pool/objects.js';
import type { SourceFields } from '../pool/spec.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';
import { buildPod, buildPvc, pvcSource } from './member-objects.js';
import { waitGone } from './wait-gone.js';

const PVC_RESOURCE = 'persistentvolumeclaims';

/** A member's pod and PVC as read now (null when absent). */
export interface MemberNow {
	pod: PodObject | null;
	pvc: PvcObject | null;
}

/**
 * Reads a member's pod and PVC (two GETs, in parallel). An object of that name that does not
 * carry the pool's label is someone else's: a PoolError, so that it is never touched.
 */
export async function readMember(
	ctx: EngineContext,
	pool: string,
	member: string,
): Promise<MemberNow> {
	const namespace = ctx.namespace;
	const [pod, pvc] = await Promise.all([
		ctx.kube.core.readNamespacedPod({ name: member, namespace }).then(
			(o) => plainObject<PodObject>(o),
			(err) => {
				if (isNotFound(err)) return null;
				throw clusterError(err, { verb: 'get', resource: 'pods', namespace, name: member });
			},
		),
		ctx.kube.core.readNamespacedPersistentVolumeClaim({ name: pvcName(member), namespace }).then(
			(o) => plainObject<PvcObject>(o),
			(err) => {
				if (isNotFound(err)) return null;
				throw clusterError(err, {
					verb: 'get',
					resource: PVC_RESOURCE,
					namespace,
					name: pvcName(member),
				});
			},
		),
	]);
	const problem = notOfPool(pool, member, { pod, pvc });
	if (problem) throw problem;
	return { pod, pvc };
}

/** The PoolError for a pod or PVC of the member's name that lacks the pool's label, else null. */
function notOfPool(pool: string, member: string, now: MemberNow): PoolError | null {
	for (const [what, o] of [
		[`pod ${member}`, now.pod],
		[`PVC ${pvcName(member)}`, now.pvc],
	] as const) {
		if (o && o.metadata.labels?.[POOL_LABEL] !== pool)
			return new PoolError(
				'failed',
				`${what} exists but is not a member of pool ${pool} (it lacks the label ${POOL_LABEL}=${pool}); ctpool leaves it alone: rename or remove it`,
			);
	}
	return null;
}

/** Creates the member's pod from source fields; resolves false when the pod already existed. */
export async function createPod(
	ctx: EngineContext,
	pool: string,
	member: string,
	src: SourceFields,
): Promise<boolean> {
	try {
		await ctx.kube.core.createNamespacedPod({
			namespace: ctx.namespace,
			body: buildPod(pool, member, ctx.namespace, src),
		});
		return true;
	} catch (err) {
		if (isAlreadyExists(err)) return false;
		throw clusterError(err, {
			verb: 'create',
			resource: 'pods',
			namespace: ctx.namespace,
			name: member,
		});
	}
}

/** Creates a member from the current source: its PVC, then its pod. */
export async function createMember(
	ctx: EngineContext,
	pool: string,
	member: string,
	src: SourceFields,
): Promise<void> {
	try {
		await ctx.kube.core.createNamespacedPersistentVolumeClaim({
			namespace: ctx.namespace,
			body: buildPvc(pool, member, ctx.namespace, src),
		});
	} catch (err) {
		throw clusterError(err, {
			verb: 'create',
			resource: PVC_RESOURCE,
			namespace: ctx.namespace,
			name: pvcName(member),
		});
	}
	if (!(await createPod(ctx, pool, member, src)))
		throw new PoolError('failed', `pod ${member} already exists, made by someone else`);
}

/**
 * Creates a member the pool's list showed as Missing without reading it first: the member's
 * Lease, just created by the caller, keeps every other ctpool away meanwhile. Resolves false
 * when its PVC already exists (nothing was written: read the member and decide again). When a
 * pod of that name turns out not to be the pool's, the PVC just made is deleted again and the
 * PoolError of readMember is thrown: that pod is never touched.
 */
export async function createMissingMember(
	ctx: EngineContext,
	pool: string,
	member: string,
	src: SourceFields,
): Promise<boolean> {
	let pvcUid: string | undefined;
	try {
		const pvc = await ctx.kube.core.createNamespacedPersistentVolumeClaim({
			namespace: ctx.namespace,
			body: buildPvc(pool, member, ctx.namespace, src),
		});
		pvcUid = pvc.metadata?.uid;
	} catch (err) {
		if (isAlreadyExists(err)) return false;
		throw clusterError(err, {
			verb: 'create',
			resource: PVC_RESOURCE,
			namespace: ctx.namespace,
			name: pvcName(member),
		});
	}
	if (await createPod(ctx, pool, member, src)) return true;
	// A pod of that name exists: the pool's (someone else made it), or not (left alone).
	let pod: PodObject;
	try {
		pod = plainObject<PodObject>(
			await ctx.kube.core.readNamespacedPod({ name: member, namespace: ctx.namespace }),
		);
	} catch (err) {
		if (isNotFound(err)) throw new PoolError('failed', `pod ${member} vanished while it was made`);
		throw clusterError(err, {
			verb: 'get',
			resource: 'pods',
			namespace: ctx.namespace,
			name: member,
		});
	}
	const problem = notOfPool(pool, member, { pod, pvc: null });
	if (problem) {
		if (pvcUid) await deleteOne(ctx, PVC_RESOURCE, pvcName(member), pvcUid).catch(() => {});
		throw problem;
	}
	return true;
}

/**
 * Starts a Stopped member: creates its pod from the source recorded on its PVC (a start
 * destroys nothing). Resolves false when the pod already existed.
 */
export async function startMember(
	ctx: EngineContext,
	pool: string,
	member: string,
	pvc: PvcObject,
): Promise<boolean> {
	const src = pvcSource(pvc.metadata.annotations);
	if (!src)
		throw new PoolError(
			'failed',
			`PVC ${pvcName(member)} has no readable ${CT_SPEC_ANNOTATION} annotation, so its pod cannot be made; release the member or delete the PVC so that it is created again`,
		);
	return createPod(ctx, pool, member, src);
}

/**
 * The grace period (s) ctpool asks for when it deletes a member pod (release, replace,
 * scale-down). The desktop is destroyed anyway, so ctpool does not wait out the pod's 30 s
 * default that a `sleep infinity` PID 1 (which ignores SIGTERM) would take; but never 0: a
 * force delete removes the API object while the container may still write to its RWO volume,
 * and pvc-protection would then let the PVC go under it. With 1 s the kubelet kills the
 * container first, and only then is the pod, and after it the PVC, gone. Only a pod verified
 * as the pool's (by its labels, then a uid precondition) gets it.
 */
export const MEMBER_POD_GRACE_SECONDS = 1;

/** Options of destroyMember. */
export interface DestroyOptions {
	/** Delete only these objects (uid preconditions): a newer object of the same name is kept. */
	podUid?: string;
	pvcUid?: string;
	onProgress?: (message: string) => void;
}

type Deletable = 'pods' | 'services' | 'persistentvolumeclaims';

async function deleteOne(
	ctx: EngineContext,
	resource: Deletable,
	name: string,
	uid: string | undefined,
): Promise<void> {
	const namespace = ctx.namespace;
	const body: { preconditions?: { uid: string }; gracePeriodSeconds?: number } = uid
		? { preconditions: { uid } }
		: {};
	// A short grace only for a pod known to be the pool's: a uid read with its labels checked.
	if (resource === 'pods' && uid) body.gracePeriodSeconds = MEMBER_POD_GRACE_SECONDS;
	try {
		if (resource === 'pods') await ctx.kube.core.deleteNamespacedPod({ name, namespace, body });
		else if (resource === 'services')
			await ctx.kube.core.deleteNamespacedService({ name, namespace, body });
		else await ctx.kube.core.deleteNamespacedPersistentVolumeClaim({ name, namespace, body });
	} catch (err) {
		if (isNotFound(err)) return;
		if (isConflict(err))
			throw new PoolError(
				'failed',
				`${resource} ${name} was replaced by someone else meanwhile; it was left alone`,
			);
		throw clusterError(err, { verb: 'delete', resource, namespace, name });
	}
}

async function exists(
	ctx: EngineContext,
	resource: Exclude<Deletable, 'services'>,
	name: string,
	uid: string | undefined,
): Promise<boolean> {
	const namespace = ctx.namespace;
	try {
		let o: { metadata?: { uid?: string } };
		if (resource === 'pods') o = await ctx.kube.core.readNamespacedPod({ name, namespace });
		else o = await ctx.kube.core.readNamespacedPersistentVolumeClaim({ name, namespace });
		return uid === undefined || o.metadata?.uid === uid;
	} catch (err) {
		if (isNotFound(err)) return false;
		throw clusterError(err, { verb: 'get', resource, namespace, name });
	}
}

/**
 * Destroys a member: deletes its pod, console Service and data PVC (a missing one is fine)
 * and waits until each is gone, at most ctx.deleteTimeoutMs each.
 */
export async function destroyMember(
	ctx: EngineContext,
	member: string,
	opts: DestroyOptions = {},
): Promise<void> {
	const steps: Array<[Deletable, string, string | undefined, string, string]> = [
		['pods', member, opts.podUid, `pod ${member}`, `check the pod: kubectl describe pod ${member}`],
		['services', serviceName(member), undefined, `Service ${serviceName(member)}`, ''],
		[
			'persistentvolumeclaims',
			pvcName(member),
			opts.pvcUid,
			`PVC ${pvcName(member)}`,
			`check its finalizers: kubectl describe pvc ${pvcName(member)}`,
		],
	];
	for (const [resource, name, uid] of steps) await deleteOne(ctx, resource, name, uid);
	for (const [resource, name, uid, what, hint] of steps) {
		// A Service has no finalizers of ours and ctpool may only delete Services, not read
		// them (the seed's permissions): its delete is the end of it.
		if (resource === 'services') continue;
		opts.onProgress?.(`deleting ${what}`);
		const waitOpts: Parameters<typeof waitGone>[1] = {
			what,
			timeoutMs: ctx.deleteTimeoutMs,
			hint,
		};
		if (ctx.signal) waitOpts.signal = ctx.signal;
		if (opts.onProgress) waitOpts.onProgress = opts.onProgress;
		const kind = resource;
		await waitGone(() => exists(ctx, kind, name, uid), waitOpts);
	}
}
