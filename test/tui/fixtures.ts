/** Cluster objects for console tests, shaped like the watches deliver them (plain JSON). */

import type { KubeObject } from '../../source/kube/objects.js';
import type { WatchChange } from '../../source/kube/pool-watch.js';
import {
	ASSIGNED_TO_ANNOTATION,
	CT_SPEC_ANNOTATION,
	configMapName,
	formatMicroTime,
	leaseName,
	MAINTENANCE_ANNOTATION,
	MEMBER_LABEL,
	POOL_LABEL,
	type PoolSpec,
	pvcName,
	SOURCE_LABEL,
	serialiseSpec,
	sourceFields,
	sourceHash,
} from '../../source/pool/index.js';

/** A fixed clock for tests. */
export const NOW = Date.parse('2026-11-29T10:00:00Z');

/** The definition ConfigMap. */
export function configMap(pool: string, s: PoolSpec, status?: unknown): KubeObject {
	return {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name: configMapName(pool), namespace: 'corral', labels: { [POOL_LABEL]: pool } },
		data: { spec: serialiseSpec(s), ...(status ? { status: JSON.stringify(status) } : {}) },
	};
}

function labels(pool: string, member: string, s: PoolSpec) {
	return {
		[POOL_LABEL]: pool,
		[MEMBER_LABEL]: member,
		[SOURCE_LABEL]: sourceHash(sourceFields(s)),
		'corral.dev/ct': 'true',
		'corral.dev/ct-name': member,
	};
}

/** Options of a member's objects. */
export interface MemberOpts {
	state?: 'Ready' | 'Starting' | 'Unschedulable' | 'Failed' | 'Terminating' | 'Stopped';
	holder?: string;
	/** ms before NOW the claim was taken */
	claimedAgo?: number;
	/** claim duration s */
	duration?: number;
	maintenance?: string;
	/** the spec the member was built from (drift when it differs from the pool's) */
	builtFrom?: PoolSpec;
	node?: string;
	message?: string;
	createdAgo?: number;
}

/** The pod, PVC and (with a holder) Lease of a member. */
export function member(
	pool: string,
	index: number,
	poolSpec: PoolSpec,
	o: MemberOpts = {},
): KubeObject[] {
	const name = `${pool}-${index}`;
	const built = o.builtFrom ?? poolSpec;
	const created = new Date(NOW - (o.createdAgo ?? 300_000)).toISOString();
	const out: KubeObject[] = [];
	const annotations: Record<string, string> = {
		[CT_SPEC_ANNOTATION]: JSON.stringify(sourceFields(built)),
	};
	if (o.holder) annotations[ASSIGNED_TO_ANNOTATION] = o.holder;
	if (o.maintenance !== undefined) annotations[MAINTENANCE_ANNOTATION] = o.maintenance;
	out.push({
		apiVersion: 'v1',
		kind: 'PersistentVolumeClaim',
		metadata: {
			name: pvcName(name),
			namespace: 'corral',
			labels: labels(pool, name, built),
			annotations,
			creationTimestamp: created,
			...(o.state === 'Terminating' ? { deletionTimestamp: new Date(NOW).toISOString() } : {}),
		},
		status: { phase: 'Bound' },
	});
	if (o.state !== 'Stopped') {
		const state = o.state ?? 'Ready';
		const status: Record<string, unknown> =
			state === 'Ready'
				? {
						phase: 'Running',
						conditions: [
							{ type: 'PodScheduled', status: 'True' },
							{ type: 'Ready', status: 'True' },
						],
						containerStatuses: [
							{ name: 'ct', ready: true, state: { running: { startedAt: created } } },
						],
					}
				: state === 'Unschedulable'
					? {
							phase: 'Pending',
							conditions: [
								{
									type: 'PodScheduled',
									status: 'False',
									reason: 'Unschedulable',
									message: o.message ?? '0/3 nodes are available: 3 Insufficient memory.',
								},
							],
						}
					: state === 'Failed'
						? {
								phase: 'Running',
								containerStatuses: [
									{
										name: 'ct',
										ready: false,
										state: {
											waiting: { reason: 'CrashLoopBackOff', message: o.message ?? 'back-off 10s' },
										},
									},
								],
							}
						: {
								phase: 'Pending',
								containerStatuses: [
									{ name: 'ct', state: { waiting: { reason: 'ContainerCreating' } } },
								],
							};
		out.push({
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: {
				name,
				namespace: 'corral',
				labels: labels(pool, name, built),
				creationTimestamp: created,
				...(state === 'Terminating' ? { deletionTimestamp: new Date(NOW).toISOString() } : {}),
			},
			spec: { nodeName: state === 'Unschedulable' ? undefined : (o.node ?? 'node-a') },
			status: state === 'Terminating' ? { phase: 'Running' } : status,
		});
	}
	if (o.holder)
		out.push(lease(pool, name, o.holder, NOW - (o.claimedAgo ?? 60_000), o.duration ?? 3600));
	return out;
}

/** A Lease on a member. */
export function lease(
	pool: string,
	member: string,
	holder: string,
	acquired: number,
	duration = 3600,
): KubeObject {
	return {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: {
			name: leaseName(member),
			namespace: 'corral',
			labels: { [POOL_LABEL]: pool, [MEMBER_LABEL]: member },
		},
		spec: {
			holderIdentity: holder,
			leaseDurationSeconds: duration,
			acquireTime: formatMicroTime(acquired),
			renewTime: formatMicroTime(acquired),
		},
	};
}

/** The watch kind of an object. */
export function kindOf(o: KubeObject): WatchChange['kind'] {
	switch (o.kind) {
		case 'Pod':
			return 'pods';
		case 'PersistentVolumeClaim':
			return 'persistentvolumeclaims';
		case 'ConfigMap':
			return 'configmaps';
		default:
			return 'leases';
	}
}

/** Upserts of objects. */
export function upserts(objects: KubeObject[]): WatchChange[] {
	return objects.map((object) => ({ kind: kindOf(object), op: 'upsert', object }));
}

/** Deletes of objects. */
export function deletes(objects: KubeObject[]): WatchChange[] {
	return objects.map((object) => ({ kind: kindOf(object), op: 'delete', object }));
}

/** The objects moved to another namespace. */
export function inNamespace(namespace: string, objects: KubeObject[]): KubeObject[] {
	return objects.map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }));
}
