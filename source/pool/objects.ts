/**
 * The shapes of the cluster objects the pool model reads: only the fields it needs, as
 * plain data. Timestamps may arrive as strings (watch events) or Dates (listed objects).
 */

/** A timestamp as the API clients hand it over. */
export type Timestamp = string | Date;

/** Object metadata fields the model reads. */
export interface Meta {
	name?: string;
	namespace?: string;
	uid?: string;
	resourceVersion?: string;
	creationTimestamp?: Timestamp;
	deletionTimestamp?: Timestamp;
	labels?: Record<string, string>;
	annotations?: Record<string, string>;
}

/** A pod condition. */
export interface Condition {
	type: string;
	status: string;
	reason?: string;
	message?: string;
}

/** A container status. */
export interface ContainerStatus {
	name: string;
	ready?: boolean;
	restartCount?: number;
	/** The running (or last) container's ID (`containerd://…`); it changes on each restart. */
	containerID?: string;
	/** The image the kubelet runs, as it reports it. */
	image?: string;
	/** The image's digest reference (`docker.io/library/x@sha256:...`). */
	imageID?: string;
	state?: {
		waiting?: { reason?: string; message?: string };
		running?: { startedAt?: Timestamp };
		terminated?: { reason?: string; message?: string; exitCode?: number };
	};
}

/** A pod's container, as far as the CT model goes. */
export interface ContainerSpec {
	name?: string;
	image?: string;
	command?: string[];
	args?: string[];
	resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
	securityContext?: { privileged?: boolean };
}

/** A pod, as far as member state and drift go. */
export interface PodObject {
	metadata: Meta;
	spec?: {
		nodeName?: string;
		containers?: ContainerSpec[];
		initContainers?: ContainerSpec[];
		/** The pod's volumes, as far as adoption looks at them (which PVC, any host path). */
		volumes?: Array<{
			name?: string;
			persistentVolumeClaim?: { claimName?: string };
			hostPath?: unknown;
		}>;
	};
	status?: {
		phase?: string;
		reason?: string;
		message?: string;
		conditions?: Condition[];
		containerStatuses?: ContainerStatus[];
	};
}

/** A PVC, as far as member state goes. */
export interface PvcObject {
	metadata: Meta;
	status?: { phase?: string };
}

/** A Lease, as far as claims go. */
export interface LeaseObject {
	metadata: Meta;
	spec?: {
		holderIdentity?: string;
		leaseDurationSeconds?: number;
		acquireTime?: Timestamp;
		renewTime?: Timestamp;
		leaseTransitions?: number;
	};
}

/** A definition ConfigMap. */
export interface ConfigMapObject {
	metadata: Meta;
	data?: Record<string, string>;
}

/** Milliseconds since the epoch of a timestamp, or null when absent or unreadable. */
export function toMillis(t: Timestamp | undefined | null): number | null {
	if (t === undefined || t === null) return null;
	const ms = t instanceof Date ? t.getTime() : Date.parse(t);
	return Number.isFinite(ms) ? ms : null;
}
