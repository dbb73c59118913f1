/** Settings of the simulated cluster: its nodes, timings, storage and what it gets wrong on purpose. */

/** One node of the simulated cluster. */
export interface SimNode {
	name: string;
	/** Allocatable CPU, a quantity ('4', '3500m'). */
	cpu: string;
	/** Allocatable memory, a quantity ('16Gi'). */
	memory: string;
}

/** A StorageClass the provisioner serves. */
export interface SimStorageClass {
	name: string;
	bindingMode: 'Immediate' | 'WaitForFirstConsumer';
	/** How long provisioning a volume takes (ms). */
	provisionDelayMs: number;
	/** Whether it is the cluster's default class. */
	isDefault?: boolean;
}

/** Everything the cluster's controllers need to know. */
export interface SimClusterConfig {
	nodes: SimNode[];
	storageClasses: SimStorageClass[];
	/** From scheduled to Running/Ready (ms). */
	containerStartMs: number;
	/**
	 * The pod spec's default terminationGracePeriodSeconds (s), 30 as on a real server. A
	 * container whose PID 1 ignores SIGTERM stays that long after a delete that names none.
	 */
	defaultGraceSeconds: number;
	/** Scale factor for every controller delay: 1 is real-ish pace, 0.01 is test pace. */
	timeScale: number;
	/** Images the kubelet cannot pull (exact references or prefixes ending in '*'). */
	unpullableImages: string[];
	/**
	 * Images whose container exits with status 1 soon after it starts, every time (same
	 * patterns): the kubelet restarts it with back-off, so the pod goes into CrashLoopBackOff.
	 */
	crashingImages: string[];
	/** SelfSubjectAccessReview denials: 'verb resource' pairs ('delete pods', 'create leases'). */
	deny: string[];
}

/**
 * Defaults: three nodes of 8 CPUs and 32Gi, a default Immediate class, a 1.5 s container
 * start, the real 30 s termination grace period, real time (timeScale 1).
 */
export function defaultClusterConfig(over: Partial<SimClusterConfig> = {}): SimClusterConfig {
	return {
		nodes: [1, 2, 3].map((i) => ({
			name: `node-${String.fromCharCode(96 + i)}`,
			cpu: '8',
			memory: '32Gi',
		})),
		storageClasses: [
			{ name: 'standard', bindingMode: 'Immediate', provisionDelayMs: 200, isDefault: true },
			{ name: 'wait', bindingMode: 'WaitForFirstConsumer', provisionDelayMs: 200 },
			{ name: 'slow', bindingMode: 'Immediate', provisionDelayMs: 5000 },
		],
		containerStartMs: 1500,
		defaultGraceSeconds: 30,
		timeScale: 1,
		unpullableImages: ['*:broken', 'registry.invalid/*'],
		crashingImages: ['*:crashing'],
		deny: [],
		...over,
	};
}
