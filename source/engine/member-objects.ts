/** The PVC and pod of a member, built from the source fields (pure). */

import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
	type CtPvc,
	type CtSpec,
	ctCommand,
	ctMountPath,
	ctSpecJson,
	ctSpecOf,
	pvcCtSpec,
} from '../pool/ct-spec.js';
import {
	CONTAINER_NAME,
	CT_LABEL,
	CT_NAME_LABEL,
	CT_SPEC_ANNOTATION,
	MEMBER_LABEL,
	POOL_LABEL,
	pvcName,
	SOURCE_LABEL,
} from '../pool/names.js';
import { sourceHash } from '../pool/source-hash.js';
import { SOURCE_FIELDS, type SourceFields, sourceFields } from '../pool/spec.js';

export { type CtPvc, pvcCtSpec, pvcSource } from '../pool/ct-spec.js';

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

/** The data PVC of a member: ReadWriteOnce, disk size, the CT spec annotation in Corral's shape. */
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
			annotations: { [CT_SPEC_ANNOTATION]: ctSpecJson(ctSpecOf(fields)) },
		},
		spec: {
			accessModes: ['ReadWriteOnce'],
			resources: { requests: { storage: fields.disk } },
		},
	};
	if (fields.storageClass !== '') pvc.spec!.storageClassName = fields.storageClass;
	return pvc;
}

/** The pod of a member made from the pool's source fields (see buildCtPod). */
export function buildPod(
	pool: string,
	member: string,
	namespace: string,
	src: SourceFields,
): V1Pod {
	const fields = sourceFields(src);
	return buildCtPod(pool, member, namespace, ctSpecOf(fields), sourceHash(fields));
}

/**
 * The pod of a member as Corral's pkg/ct makes a CT's pod: restartPolicy Always; one
 * container `ct` with the image, stdin and tty, requests = limits of cpu (whole cores) and
 * memory, privileged as the spec says; the PVC as volume `data`, mounted at /data, or,
 * privileged, at /corral-rootfs as the root file system the bootstrap seeds and chroots into.
 * The command: `sleep infinity`; the image's entrypoint with init; the bootstrap when
 * privileged. Labels: the pool's five, the source label carrying hash.
 */
export function buildCtPod(
	pool: string,
	member: string,
	namespace: string,
	ct: CtSpec,
	hash: string,
): V1Pod {
	const resources = { cpu: String(ct.cpu), memory: ct.mem };
	const container: NonNullable<V1Pod['spec']>['containers'][number] = {
		name: CONTAINER_NAME,
		image: ct.image,
		stdin: true,
		tty: true,
		resources: { limits: { ...resources }, requests: { ...resources } },
		securityContext: { privileged: ct.privileged },
		volumeMounts: [{ name: DATA_VOLUME, mountPath: ctMountPath(ct.privileged) }],
	};
	const command = ctCommand(ct);
	if (command) container.command = command;
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: {
			name: member,
			namespace,
			labels: memberLabels(pool, member, hash),
		},
		spec: {
			restartPolicy: 'Always',
			containers: [container],
			volumes: [{ name: DATA_VOLUME, persistentVolumeClaim: { claimName: pvcName(member) } }],
		},
	};
}

/**
 * The pod a Stopped member is started with: made from the CT spec its PVC records, as
 * Corral's `ct start` makes it, carrying the PVC's source label (the source the member was
 * built from). Null when the PVC's annotation is missing or unreadable.
 */
export function podFromPvc(
	pool: string,
	member: string,
	namespace: string,
	pvc: CtPvc,
): V1Pod | null {
	const read = pvcCtSpec(pvc);
	if (!read) return null;
	let hash = pvc.metadata?.labels?.[SOURCE_LABEL];
	if (hash === undefined) {
		const f = read.fields;
		const complete = SOURCE_FIELDS.every((k) => f[k] !== undefined);
		hash = complete ? sourceHash(f as SourceFields) : '';
	}
	return buildCtPod(pool, member, namespace, read.ct, hash);
}
