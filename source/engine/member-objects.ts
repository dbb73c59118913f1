/** The PVC and pod of a member, built from the source fields (pure). */

import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
	CONTAINER_NAME,
	CT_LABEL,
	CT_NAME_LABEL,
	CT_SPEC_ANNOTATION,
	DATA_MOUNT,
	MEMBER_LABEL,
	POOL_LABEL,
	pvcName,
	ROOTFS_MOUNT,
	SOURCE_LABEL,
} from '../pool/names.js';
import { sourceHash, sourceJson } from '../pool/source-hash.js';
import { type SourceFields, sourceFields, validateSpec } from '../pool/spec.js';

/** The name of the pod volume that holds the member's data PVC. */
export const DATA_VOLUME = 'data';

/** The five labels of a member's pod and PVC. */
export function memberLabels(pool: string, member: string, hash: string): Record<string, string> {
	return {
		[POOL_LABEL]: pool,
		[MEMBER_LABEL]: member,
		[SOURCE_LABEL]: hash,
		[CT_LABEL]: 'true',
		[CT_NAME_LABEL]: member,
	};
}

/** The data PVC of a member: ReadWriteOnce, disk size, the CT spec annotation. */
export function buildPvc(
	pool: string,
	member: string,
	namespace: string,
	src: SourceFields,
): V1PersistentVolumeClaim {
	const fields = sourceFields(src);
	const pvc: V1PersistentVolumeClaim = {
		apiVersion: 'v1',
		kind: 'PersistentVolumeClaim',
		metadata: {
			name: pvcName(member),
			namespace,
			labels: memberLabels(pool, member, sourceHash(fields)),
			annotations: { [CT_SPEC_ANNOTATION]: sourceJson(fields) },
		},
		spec: {
			accessModes: ['ReadWriteOnce'],
			resources: { requests: { storage: fields.disk } },
		},
	};
	if (fields.storageClass !== '') pvc.spec!.storageClassName = fields.storageClass;
	return pvc;
}

/**
 * The pod of a member: one container `ct` with the image, requests = limits of cpu and
 * memory, `sleep infinity` unless init (then the image's entrypoint), the PVC mounted at
 * /data, or, privileged, as the root file system at /corral-rootfs.
 */
export function buildPod(
	pool: string,
	member: string,
	namespace: string,
	src: SourceFields,
): V1Pod {
	const fields = sourceFields(src);
	const resources = { cpu: fields.cpu, memory: fields.memory };
	const container: NonNullable<V1Pod['spec']>['containers'][number] = {
		name: CONTAINER_NAME,
		image: fields.image,
		resources: { requests: { ...resources }, limits: { ...resources } },
		volumeMounts: [{ name: DATA_VOLUME, mountPath: fields.privileged ? ROOTFS_MOUNT : DATA_MOUNT }],
	};
	if (!fields.init) container.command = ['sleep', 'infinity'];
	if (fields.privileged) container.securityContext = { privileged: true };
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: {
			name: member,
			namespace,
			labels: memberLabels(pool, member, sourceHash(fields)),
		},
		spec: {
			hostname: member,
			containers: [container],
			volumes: [{ name: DATA_VOLUME, persistentVolumeClaim: { claimName: pvcName(member) } }],
		},
	};
}

/**
 * The source fields a PVC was built from, read from its CT spec annotation; null when the
 * annotation is missing or does not hold valid source fields.
 */
export function pvcSource(annotations: Record<string, string> | undefined): SourceFields | null {
	const text = annotations?.[CT_SPEC_ANNOTATION];
	if (!text) return null;
	try {
		const raw = JSON.parse(text) as unknown;
		if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
		return sourceFields(validateSpec({ ...(raw as object), mode: 'ephemeral', size: 1 }));
	} catch {
		return null;
	}
}
