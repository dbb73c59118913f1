/** What the controllers read from pods: typed views, requests, claims and phases. */

import { podRequests as poolPodRequests } from '../../pool/node-room.js';
import { parseQuantity } from '../../pool/quantity.js';
import type { SimObject } from '../store-api.js';

/** A container as the controllers read it. */
export interface PodContainer {
	name: string;
	image?: string;
	command?: string[];
	args?: string[];
	env?: Array<{ name: string; value?: string }>;
	resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
	volumeMounts?: Array<{ name: string; mountPath: string }>;
	securityContext?: { privileged?: boolean };
}

/** A pod condition as written to status. */
export interface PodCondition {
	type: string;
	status: 'True' | 'False' | 'Unknown';
	reason?: string;
	message?: string;
	lastProbeTime?: string | null;
	lastTransitionTime?: string;
}

/** A container status as written to status. */
export interface PodContainerStatus {
	name: string;
	image?: string;
	imageID?: string;
	containerID?: string;
	ready?: boolean;
	started?: boolean;
	restartCount?: number;
	state?: Record<string, Record<string, unknown>>;
	lastState?: Record<string, Record<string, unknown>>;
}

/** A pod, as the controllers read and write it. */
export interface Pod extends SimObject {
	spec?: {
		nodeName?: string;
		restartPolicy?: string;
		containers?: PodContainer[];
		initContainers?: PodContainer[];
		volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName?: string } }>;
		[key: string]: unknown;
	};
	status?: {
		phase?: string;
		conditions?: PodCondition[];
		containerStatuses?: PodContainerStatus[];
		hostIP?: string;
		podIP?: string;
		startTime?: string;
		qosClass?: string;
		[key: string]: unknown;
	};
}

/** A PVC, as the controllers read and write it. */
export interface Claim extends SimObject {
	spec?: {
		storageClassName?: string | null;
		volumeName?: string;
		accessModes?: string[];
		resources?: { requests?: Record<string, string> };
		[key: string]: unknown;
	};
	status?: {
		phase?: string;
		accessModes?: string[];
		capacity?: Record<string, string>;
		[key: string]: unknown;
	};
}

/** The CPU (millicores) and memory (bytes) a pod asks for. */
export interface Requests {
	milliCpu: number;
	memory: number;
}

/** `namespace/name`, the key of a namespaced object. */
export function objectKey(namespace: string | undefined, name: string): string {
	return `${namespace ?? ''}/${name}`;
}

/** The key of a stored object. */
export function keyOf(obj: SimObject): string {
	return objectKey(obj.metadata.namespace, obj.metadata.name);
}

/** Splits a key made by objectKey. */
export function splitKey(key: string): { namespace: string; name: string } {
	const slash = key.indexOf('/');
	return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Millicores of a CPU quantity (0 when absent or unreadable). */
export function milliCpu(q: string | undefined): number {
	const v = q === undefined ? null : parseQuantity(String(q));
	return v === null || v < 0 ? 0 : Math.round(v * 1000);
}

/** Bytes of a memory quantity (0 when absent or unreadable). */
export function bytes(q: string | undefined): number {
	const v = q === undefined ? null : parseQuantity(String(q));
	return v === null || v < 0 ? 0 : Math.round(v);
}

/** The pod's effective requests: the sum over containers, at least the largest init container. */
export function podRequests(pod: Pod): Requests {
	return poolPodRequests(pod);
}

/** The names of the PVCs the pod mounts. */
export function podClaimNames(pod: Pod): string[] {
	const names: string[] = [];
	for (const v of pod.spec?.volumes ?? []) {
		const claim = v.persistentVolumeClaim?.claimName;
		if (claim && !names.includes(claim)) names.push(claim);
	}
	return names;
}

/** Whether the pod has finished for good (Succeeded or Failed). */
export function isTerminal(pod: Pod): boolean {
	const phase = pod.status?.phase;
	return phase === 'Succeeded' || phase === 'Failed';
}

/** A timestamp as the API writes it: seconds precision, UTC (`2026-11-29T10:00:00Z`). */
export function apiTime(ms: number = Date.now()): string {
	return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** A deep copy of a stored object, safe to change and write back. */
export function copyOf<T extends SimObject>(obj: SimObject): T {
	return structuredClone(obj) as T;
}
