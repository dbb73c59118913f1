/** Creating, starting, reading and destroying one member's objects. */

import type { V1Pod } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { readCtSpec } from '../pool/ct-spec.js';
import { PoolError } from '../pool/errors.js';
import {
	CT_SPEC_ANNOTATION,
	pvcName,
	SERVICE_UNVERIFIED_ANNOTATION,
	serviceName,
} from '../pool/names.js';
import type { PodObject, PvcObject } from '../pool/objects.js';
import { isCorralStartedPod, isPoolObject } from '../pool/ownership.js';
import type { SourceFields } from '../pool/spec.js';
import { adoptCorralPod } from './adopt-pod.js';
import { clusterError } from './cluster-error.js';
import { type EngineContext, emitEvent, suggestKubectl } from './context.js';
import { dryRunCreate } from './dry-run.js';
import { checkOwned, ForeignObjectError, readService } from './foreign-objects.js';
import { buildPod, buildPvc, podFromPvc } from './member-objects.js';
import { mergePatchOptions } from './merge-patch.js';
import { waitGone } from './wait-gone.js';

const PVC_RESOURCE = 'persistentvolumeclaims';

/** A member's pod and PVC as read now (null when absent). */
export interface MemberNow {
	pod: PodObject | null;
	pvc: PvcObject | null;
}

/**
 * Reads a member's pod and PVC (two GETs, in parallel). The member's pod started by Corral's
 * own `ct start` is adopted first (adopt-pod.ts). An object of that name that is not the
 * pool's (isPoolObject) is someone else's: a ForeignObjectError, so that it is never touched.
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
	// The member's pod started by Corral (`corral ct start`) is adopted: it is the member's.
	const adopted =
		pod &&
		pvc &&
		!isPoolObject(pool, member, 'pod', pod) &&
		isCorralStartedPod(pool, member, pod, pvc)
			? await adoptCorralPod(ctx, pool, member, pod, pvc)
			: pod;
	checkOwned(pool, member, [
		['pod', adopted],
		['PVC', pvc],
	]);
	return { pod: adopted, pvc };
}

/** Creates the member's pod (from source fields, or a pod made already); resolves false when it already existed. */
export async function createPod(
	ctx: EngineContext,
	pool: string,
	member: string,
	src: SourceFields | V1Pod,
): Promise<boolean> {
	const body = 'metadata' in src ? src : buildPod(pool, member, ctx.namespace, src as SourceFields);
	try {
		await ctx.kube.core.createNamespacedPod({ namespace: ctx.namespace, body });
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

/** Creates a member from the current source: its PVC (with extra annotations, if any), then its pod. */
export async function createMember(
	ctx: EngineContext,
	pool: string,
	member: string,
	src: SourceFields,
	annotations: Record<string, string> = {},
): Promise<void> {
	const body = buildPvc(pool, member, ctx.namespace, src);
	if (body.metadata) body.metadata.annotations = { ...body.metadata.annotations, ...annotations };
	try {
		await ctx.kube.core.createNamespacedPersistentVolumeClaim({ namespace: ctx.namespace, body });
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
 * A server-side dry run (dryRun=All) of the create of a member's PVC from the source: the
 * admission a create meets (a ResourceQuota, a StorageClass, a policy) with nothing stored.
 * Resolves with 'ok', or 'exists' when a PVC of that name exists.
 */
export async function dryRunMemberPvc(
	ctx: EngineContext,
	pool: string,
	member: string,
	src: SourceFields,
): Promise<'ok' | 'exists'> {
	const body = buildPvc(pool, member, ctx.namespace, src);
	return dryRunCreate(ctx, { resource: PVC_RESOURCE, name: pvcName(member) }, (dryRun) =>
		ctx.kube.core.createNamespacedPersistentVolumeClaim({ namespace: ctx.namespace, body, dryRun }),
	);
}

/**
 * Creates a member the pool's list showed as Missing without reading it first: the member's
 * Lease, just created by the caller, keeps every other ctpool away meanwhile. Resolves false
 * when its PVC already exists (nothing was written: read the member and decide again). When a
 * pod of that name turns out not to be the pool's, the PVC just made is deleted again and a
 * ForeignObjectError is thrown: that pod is never touched.
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
	if (!isPoolObject(pool, member, 'pod', pod)) {
		if (pvcUid)
			await ctx.kube.core
				.deleteNamespacedPersistentVolumeClaim({
					name: pvcName(member),
					namespace: ctx.namespace,
					body: { preconditions: { uid: pvcUid } },
				})
				.catch(() => {});
		throw new ForeignObjectError(member, ['pod']);
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
	const pod = podFromPvc(pool, member, ctx.namespace, pvc);
	if (!pod) {
		const read = readCtSpec(pvc.metadata.annotations?.[CT_SPEC_ANNOTATION]);
		const why = read && !read.ok ? ` (${read.problem})` : '';
		throw new PoolError(
			'failed',
			`PVC ${pvcName(member)} has no readable ${CT_SPEC_ANNOTATION} annotation${why}, so its pod cannot be made; release the member or delete the PVC so that it is created again`,
		);
	}
	if (await createPod(ctx, pool, member, pod)) return true;
	await readMember(ctx, pool, member); // throws when the pod there is not the pool's
	return false;
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

const KIND: Record<Deletable, 'pod' | 'Service' | 'PVC'> = {
	pods: 'pod',
	services: 'Service',
	persistentvolumeclaims: 'PVC',
};

/** How often a delete reads again after its preconditions failed (the object changed meanwhile). */
const DELETE_ATTEMPTS = 3;

interface ReadObject {
	metadata: { uid?: string; resourceVersion?: string; labels?: Record<string, string> };
	spec?: unknown;
}

async function readObject(
	ctx: EngineContext,
	resource: Deletable,
	member: string,
	name: string,
): Promise<ReadObject | null | 'unreadable'> {
	const namespace = ctx.namespace;
	if (resource === 'services') return readService(ctx, member);
	try {
		return plainObject<ReadObject>(
			resource === 'pods'
				? await ctx.kube.core.readNamespacedPod({ name, namespace })
				: await ctx.kube.core.readNamespacedPersistentVolumeClaim({ name, namespace }),
		);
	} catch (err) {
		if (isNotFound(err)) return null;
		throw clusterError(err, { verb: 'get', resource, namespace, name });
	}
}

/**
 * Deletes one of the member's objects, only when it is the pool's (isPoolObject) and, when
 * uid is given, that very object: read, check, delete with uid and resourceVersion
 * preconditions, so that an object swapped or relabelled between the read and the delete is
 * never destroyed. Resolves with the uid deleted (undefined when there was nothing to delete;
 * 'unreadable' when a Service could not be read: it is then left alone).
 */
async function deleteOwned(
	ctx: EngineContext,
	pool: string,
	member: string,
	resource: Deletable,
	name: string,
	uid: string | undefined,
): Promise<string | undefined | 'unreadable'> {
	const namespace = ctx.namespace;
	for (let attempt = 1; ; attempt++) {
		const o = await readObject(ctx, resource, member, name);
		if (o === null) return undefined;
		if (o === 'unreadable') return o;
		if (!isPoolObject(pool, member, KIND[resource], o))
			throw new ForeignObjectError(member, [KIND[resource]]);
		if (uid !== undefined && o.metadata.uid !== uid)
			throw new PoolError(
				'failed',
				`${resource} ${name} was replaced by someone else meanwhile; it was left alone`,
			);
		const preconditions: { uid?: string; resourceVersion?: string } = {};
		if (o.metadata.uid) preconditions.uid = o.metadata.uid;
		if (o.metadata.resourceVersion) preconditions.resourceVersion = o.metadata.resourceVersion;
		const body: { preconditions: typeof preconditions; gracePeriodSeconds?: number } = {
			preconditions,
		};
		// A short grace only for a pod just shown to be the pool's (uid and labels checked).
		if (resource === 'pods') body.gracePeriodSeconds = MEMBER_POD_GRACE_SECONDS;
		try {
			if (resource === 'pods') await ctx.kube.core.deleteNamespacedPod({ name, namespace, body });
			else if (resource === 'services')
				await ctx.kube.core.deleteNamespacedService({ name, namespace, body });
			else await ctx.kube.core.deleteNamespacedPersistentVolumeClaim({ name, namespace, body });
			return o.metadata.uid;
		} catch (err) {
			if (isNotFound(err)) return undefined;
			// Changed since the read (a status update, or another object now): read again.
			if (isConflict(err) && attempt < DELETE_ATTEMPTS) continue;
			if (isConflict(err))
				throw new PoolError(
					'failed',
					`${resource} ${name} kept changing while it was deleted; it was left alone: run the step again`,
				);
			throw clusterError(err, { verb: 'delete', resource, namespace, name });
		}
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
 * Destroys a member: deletes its pod, console Service and data PVC (a missing one is fine),
 * each only when it is the pool's (a ForeignObjectError otherwise, before anything of the
 * member is deleted when the pod is the stranger), and waits until each is gone, at most
 * ctx.deleteTimeoutMs each. A console Service that cannot be read or is not the member's is
 * left in place and never stops the destroy: resolves with what became of it (warned).
 */
export async function destroyMember(
	ctx: EngineContext,
	pool: string,
	member: string,
	opts: DestroyOptions = {},
): Promise<ServiceOutcome> {
	let service: ServiceOutcome = 'absent';
	const steps: Array<[Deletable, string, string | undefined, string, string]> = [
		[
			'pods',
			member,
			opts.podUid,
			`pod ${member}`,
			`check the pod: ${suggestKubectl(ctx, `describe pod ${member}`)}`,
		],
		['services', serviceName(member), undefined, `Service ${serviceName(member)}`, ''],
		[
			'persistentvolumeclaims',
			pvcName(member),
			opts.pvcUid,
			`PVC ${pvcName(member)}`,
			`check its finalizers: ${suggestKubectl(ctx, `describe pvc ${pvcName(member)}`)}`,
		],
	];
	const deleted = new Map<Deletable, string | undefined | 'unreadable'>();
	for (const [resource, name, uid] of steps) {
		if (resource === 'services') {
			service = await removeConsoleService(ctx, pool, member);
			continue;
		}
		deleted.set(resource, await deleteOwned(ctx, pool, member, resource, name, uid));
	}
	for (const [resource, name, , what, hint] of steps) {
		// A Service has no finalizers of ours: its delete is the end of it.
		if (resource === 'services') continue;
		const uid = deleted.get(resource);
		if (uid === undefined || uid === 'unreadable') continue;
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
	return service;
}

/**
 * What became of the member's console Service `<member>-svc` in a destroy: deleted (it was
 * the member's), absent, unreadable (no get on services: left in place, and it may still
 * route to the member) or foreign (not the member's: left alone). Neither of the last two
 * stops a release or replace; each is said as a warning (stderr on the command line).
 */
export type ServiceOutcome = 'deleted' | 'absent' | 'unreadable' | 'foreign';

/** The warning of a console Service left in place, or null for none. */
export function serviceWarning(member: string, outcome: ServiceOutcome): string | null {
	const name = serviceName(member);
	if (outcome === 'unreadable')
		return `Service ${name} could not be read (no get on services), so ctpool cannot prove it is ${member}'s and left it in place: it may still route to ${member}, which is made again for the next user. Grant get on services (ctpool rbac prints it) so that ctpool can prove and remove it, or check it yourself: kubectl get service ${name}`;
	if (outcome === 'foreign')
		return `Service ${name} does not select ${member} alone (corral.dev/ct-name: ${member}), so it is not ${member}'s console Service: left alone`;
	return null;
}

/** The PVC annotation a member made again carries when its old console Service could not be read. */
export function unverifiedServiceMark(
	member: string,
	outcome: ServiceOutcome,
): Record<string, string> {
	return outcome === 'unreadable' ? { [SERVICE_UNVERIFIED_ANNOTATION]: serviceName(member) } : {};
}

/** Deletes the member's console Service when it is the member's (read, checked, preconditions). */
export async function destroyConsoleService(
	ctx: EngineContext,
	pool: string,
	member: string,
): Promise<ServiceOutcome> {
	try {
		const done = await deleteOwned(ctx, pool, member, 'services', serviceName(member), undefined);
		return done === 'unreadable' ? done : done ? 'deleted' : 'absent';
	} catch (err) {
		if (err instanceof ForeignObjectError) return 'foreign';
		throw err;
	}
}

async function removeConsoleService(
	ctx: EngineContext,
	pool: string,
	member: string,
): Promise<ServiceOutcome> {
	const outcome = await destroyConsoleService(ctx, pool, member);
	const warning = serviceWarning(member, outcome);
	if (warning)
		emitEvent(ctx, {
			pool,
			member,
			action: 'delete',
			outcome: 'info',
			message: warning,
			partial: true,
		});
	return outcome;
}

/**
 * Writes annotations on the member's PVC (null removes one) only when the PVC is the pool's:
 * read, check ownership, then a merge patch carrying the resourceVersion read (a
 * compare-and-swap; read again when it changed meanwhile). Resolves with the PVC written, or
 * null when the member has no PVC. Throws ForeignObjectError for a PVC that is not the pool's.
 */
export async function annotateOwnedPvc(
	ctx: EngineContext,
	pool: string,
	member: string,
	annotations: Record<string, string | null>,
	known?: PvcObject,
): Promise<PvcObject | null> {
	const name = pvcName(member);
	const namespace = ctx.namespace;
	for (let attempt = 1; ; attempt++) {
		// A PVC already read (a claim's snapshot) is patched at the resourceVersion it was read
		// at, without a read: if it changed since (409), it is read again and judged anew.
		const pvc =
			attempt === 1 && known?.metadata.resourceVersion
				? known
				: await readObject(ctx, 'persistentvolumeclaims', member, name);
		if (pvc === null || pvc === 'unreadable') return null;
		if (!isPoolObject(pool, member, 'PVC', pvc)) throw new ForeignObjectError(member, ['PVC']);
		const metadata: Record<string, unknown> = { annotations };
		if (pvc.metadata.resourceVersion) metadata.resourceVersion = pvc.metadata.resourceVersion;
		try {
			return plainObject<PvcObject>(
				await ctx.kube.core.patchNamespacedPersistentVolumeClaim(
					{ name, namespace, body: { metadata } },
					mergePatchOptions(),
				),
			);
		} catch (err) {
			if (isNotFound(err)) return null;
			if (isConflict(err) && attempt < DELETE_ATTEMPTS) continue;
			throw clusterError(err, { verb: 'patch', resource: PVC_RESOURCE, namespace, name });
		}
	}
}
