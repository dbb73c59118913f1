/**
 * A member's Lease: create is the atomic claim (the first writer wins), every change is a
 * replace carrying metadata.resourceVersion (compare-and-swap), every delete carries a
 * resourceVersion precondition.
 */

import { hostname } from 'node:os';
import type { V1Lease, V1MicroTime } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { RECONCILER_IDENTITY } from '../pool/errors.js';
import {
	formatMicroTime,
	HOLDER_LABEL,
	heldByReconciler,
	holderLabelValue,
	LEASE_HOST_ANNOTATION,
	LEASE_STEP_ANNOTATION,
	type LeaseStep,
	leaseExpired,
	RECONCILER_LEASE_SECONDS,
} from '../pool/lease.js';
import { leaseName, MEMBER_LABEL, POOL_LABEL } from '../pool/names.js';
import type { LeaseObject } from '../pool/objects.js';
import { clusterError } from './cluster-error.js';
import type { EngineContext } from './context.js';
import { dryRunCreate } from './dry-run.js';

const LEASE_RESOURCE = 'leases.coordination.k8s.io';

/** A Lease time for the API: six fractional digits (serialised as the string it is). */
function microTime(ms: number): V1MicroTime {
	return formatMicroTime(ms) as unknown as V1MicroTime;
}

/** The Lease object of a member held by holder from now on. */
function leaseBody(
	ctx: EngineContext,
	pool: string,
	member: string,
	holder: string,
	durationSeconds: number,
	transitions: number,
	annotations?: Record<string, string>,
): V1Lease {
	const now = ctx.now();
	return {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: {
			name: leaseName(member),
			namespace: ctx.namespace,
			labels: {
				[POOL_LABEL]: pool,
				[MEMBER_LABEL]: member,
				[HOLDER_LABEL]: holderLabelValue(holder),
			},
			...(annotations ? { annotations } : {}),
		},
		spec: {
			holderIdentity: holder,
			acquireTime: microTime(now),
			renewTime: microTime(now),
			leaseDurationSeconds: durationSeconds,
			leaseTransitions: transitions,
		},
	};
}

/**
 * Creates the member's Lease for holder: the atomic step of a claim. Resolves with the
 * Lease, or null when another writer created it first (409 AlreadyExists).
 */
export async function createLease(
	ctx: EngineContext,
	pool: string,
	member: string,
	holder: string,
	durationSeconds: number,
	annotations?: Record<string, string>,
): Promise<LeaseObject | null> {
	const body = leaseBody(ctx, pool, member, holder, durationSeconds, 0, annotations);
	try {
		const created = await ctx.kube.coordination.createNamespacedLease({
			namespace: ctx.namespace,
			body,
		});
		return plainObject<LeaseObject>(created);
	} catch (err) {
		if (isAlreadyExists(err)) return null;
		throw clusterError(err, {
			verb: 'create',
			resource: LEASE_RESOURCE,
			namespace: ctx.namespace,
			name: leaseName(member),
		});
	}
}

/**
 * A server-side dry run (dryRun=All) of the create of the member's reconciler Lease: the
 * admission and rights checks of the first write a step would make, and nothing stored.
 * Resolves with 'ok', or 'exists' when the member has a Lease already.
 */
export async function dryRunReconcilerLease(
	ctx: EngineContext,
	pool: string,
	member: string,
): Promise<'ok' | 'exists'> {
	const body = leaseBody(ctx, pool, member, RECONCILER_IDENTITY, RECONCILER_LEASE_SECONDS, 0);
	return dryRunCreate(ctx, { resource: LEASE_RESOURCE, name: leaseName(member) }, (dryRun) =>
		ctx.kube.coordination.createNamespacedLease({ namespace: ctx.namespace, body, dryRun }),
	);
}

/** How a replace changes the Lease. */
export interface LeaseChange {
	holder: string;
	durationSeconds: number;
	/** A new holder: acquireTime = now and leaseTransitions + 1; otherwise only renewTime = now. */
	transfer: boolean;
	/** Annotations to set beside the ones the Lease has (the step a reconciler works on). */
	annotations?: Record<string, string>;
}

/**
 * Replaces the Lease with a compare-and-swap on the resourceVersion it was read at.
 * Resolves with the new Lease, or null when it changed or vanished meanwhile (409, 404).
 */
export async function replaceLease(
	ctx: EngineContext,
	current: LeaseObject,
	change: LeaseChange,
): Promise<LeaseObject | null> {
	const name = current.metadata.name ?? '';
	const now = microTime(ctx.now());
	const spec = current.spec ?? {};
	const body: V1Lease = {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: {
			name,
			namespace: ctx.namespace,
			resourceVersion: current.metadata.resourceVersion ?? '',
			// the holder's digest follows the holder (set on a Lease an older ctpool wrote too)
			labels: {
				...(current.metadata.labels ?? {}),
				[HOLDER_LABEL]: holderLabelValue(change.holder),
			},
		},
		spec: {
			holderIdentity: change.holder,
			acquireTime: change.transfer
				? now
				: ((spec.acquireTime as unknown as V1MicroTime | undefined) ?? now),
			renewTime: now,
			leaseDurationSeconds: change.durationSeconds,
			leaseTransitions: (spec.leaseTransitions ?? 0) + (change.transfer ? 1 : 0),
		},
	};
	if (current.metadata.annotations || change.annotations)
		body.metadata!.annotations = { ...current.metadata.annotations, ...change.annotations };
	try {
		const replaced = await ctx.kube.coordination.replaceNamespacedLease({
			name,
			namespace: ctx.namespace,
			body,
		});
		return plainObject<LeaseObject>(replaced);
	} catch (err) {
		if (isConflict(err) || isNotFound(err)) return null;
		throw clusterError(err, {
			verb: 'update',
			resource: LEASE_RESOURCE,
			namespace: ctx.namespace,
			name,
		});
	}
}

/**
 * Deletes a Lease with a resourceVersion precondition. Resolves true when it is gone (404
 * included), false when it changed since it was read (409: someone else's now).
 */
export async function deleteLease(ctx: EngineContext, lease: LeaseObject): Promise<boolean> {
	const name = lease.metadata.name ?? '';
	const preconditions: { resourceVersion: string; uid?: string } = {
		resourceVersion: lease.metadata.resourceVersion ?? '',
	};
	if (lease.metadata.uid) preconditions.uid = lease.metadata.uid;
	try {
		await ctx.kube.coordination.deleteNamespacedLease({
			name,
			namespace: ctx.namespace,
			body: { preconditions },
		});
		return true;
	} catch (err) {
		if (isNotFound(err)) return true;
		if (isConflict(err)) return false;
		throw clusterError(err, {
			verb: 'delete',
			resource: LEASE_RESOURCE,
			namespace: ctx.namespace,
			name,
		});
	}
}

/** Reads a member's Lease; null when it has none. */
export async function readLease(
	ctx: EngineContext,
	member: string,
	name = leaseName(member),
): Promise<LeaseObject | null> {
	try {
		const lease = await ctx.kube.coordination.readNamespacedLease({
			name,
			namespace: ctx.namespace,
		});
		return plainObject<LeaseObject>(lease);
	} catch (err) {
		if (isNotFound(err)) return null;
		throw clusterError(err, {
			verb: 'get',
			resource: LEASE_RESOURCE,
			namespace: ctx.namespace,
			name,
		});
	}
}

/** The annotations that record a step on the reconciler Lease taken for it. */
export function stepAnnotations(step: LeaseStep): Record<string, string> {
	let host = '';
	try {
		host = hostname()
			.replace(/[^A-Za-z0-9._-]/g, '')
			.slice(0, 64);
	} catch {
		// no host name
	}
	return { [LEASE_STEP_ANNOTATION]: step, ...(host ? { [LEASE_HOST_ANNOTATION]: host } : {}) };
}

/**
 * Takes the member's Lease as the reconciler for a step: creates it when the member has
 * none, takes over an expired reconciler Lease with a CAS update; the step is recorded on
 * it (stepAnnotations). Resolves null when it cannot: a user holds it (expired or not: hands
 * off), a live reconciler holds it, or another writer won. Keep it renewed while the step
 * runs (keepLease): it lasts RECONCILER_LEASE_SECONDS.
 */
export async function takeReconcilerLease(
	ctx: EngineContext,
	pool: string,
	member: string,
	current: LeaseObject | null,
	step: LeaseStep,
): Promise<LeaseObject | null> {
	const annotations = stepAnnotations(step);
	if (!current)
		return createLease(
			ctx,
			pool,
			member,
			RECONCILER_IDENTITY,
			RECONCILER_LEASE_SECONDS,
			annotations,
		);
	if (!heldByReconciler(current) || !leaseExpired(current, ctx.now())) return null;
	return replaceLease(ctx, current, {
		holder: RECONCILER_IDENTITY,
		durationSeconds: RECONCILER_LEASE_SECONDS,
		transfer: true,
		annotations,
	});
}
