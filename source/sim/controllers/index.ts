/** The simulated cluster's controllers: scheduler, kubelet, volume provisioner, events. */

import type { SimClusterConfig } from '../config.js';
import type { SimStore } from '../store-api.js';

/** Handles on the running controllers, for tests, faults and demos. */
export interface SimControllers {
	/** Stops every controller and its timers. */
	stop(): void;
	/** Makes a running member's container crash and go into CrashLoopBackOff. */
	crash(namespace: string, pod: string): void;
	/** Makes a pod fail for good (phase Failed, container terminated with an exit code). */
	fail(namespace: string, pod: string): void;
	/** Marks a PVC Lost. */
	loseVolume(namespace: string, pvc: string): void;
}

/** Starts the controllers over the store. (Stub: replaced by the real controllers.) */
export function startControllers(_store: SimStore, _config: SimClusterConfig): SimControllers {
	return { stop() {}, crash() {}, fail() {}, loseVolume() {} };
}
