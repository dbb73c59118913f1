/** The simulated cluster's controllers: scheduler, kubelet, volume provisioner, events. */

import type { SimClusterConfig } from '../config.js';
import { ContainerLogs } from '../container-logs.js';
import type { SimEvent, SimStore } from '../store-api.js';
import { ClusterNodes } from './cluster-nodes.js';
import { type ControllerError, ControllerErrors } from './controller-errors.js';
import { EventRecorder } from './events.js';
import { Kubelet } from './kubelet.js';
import { Provisioner } from './provisioner.js';
import { Scheduler } from './scheduler.js';

export type { ControllerError } from './controller-errors.js';
export { fitErrorMessage } from './scheduler.js';

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
	/** Errors the controllers hit and could not act on (store races excluded); empty when healthy. */
	errors(): ControllerError[];
	/** The containers' logs, as the kubelet writes them (the log endpoint reads them). */
	logs: ContainerLogs;
	/** Pods waiting for room or a claim, and pending controller timers (for tests, benchmarks). */
	backlog(): { waitingPods: number; timers: number };
}

/** The resources the controllers follow. */
const FOLLOWED = ['nodes', 'persistentvolumeclaims', 'pods'];

/**
 * Starts the controllers over the store: registers the configured nodes as Node objects,
 * takes over the pods and claims already stored, then follows every change.
 */
export function startControllers(
	store: SimStore,
	config: SimClusterConfig,
	logs: ContainerLogs = new ContainerLogs(),
): SimControllers {
	const errors = new ControllerErrors();
	const nodes = new ClusterNodes(config);
	const events = new EventRecorder(store, errors);
	const scheduler = new Scheduler(store, config, nodes, events, errors);
	const kubelet = new Kubelet(store, config, nodes, events, errors, logs);
	const provisioner = new Provisioner(store, config, events, errors);
	const dispatch = (e: SimEvent): void => {
		if (!FOLLOWED.includes(e.resource)) return;
		errors.guard(`follow ${e.resource}`, () => {
			scheduler.onChange(e);
			kubelet.onChange(e);
			provisioner.onChange(e);
		});
	};
	const unsubscribe = store.onChange(dispatch);
	errors.guard('register nodes', () => nodes.register(store));
	// Take over what is already stored, as a fresh informer's initial list would.
	for (const resource of FOLLOWED) {
		for (const object of store.list(resource)) {
			dispatch({ type: 'ADDED', resource, object, revision: store.revision() });
		}
	}
	let stopped = false;
	return {
		stop() {
			if (stopped) return;
			stopped = true;
			unsubscribe();
			scheduler.stop();
			kubelet.stop();
			provisioner.stop();
		},
		crash(namespace, pod) {
			if (!stopped) errors.guard('crash', () => kubelet.crash(namespace, pod));
		},
		fail(namespace, pod) {
			if (!stopped) errors.guard('fail', () => kubelet.fail(namespace, pod));
		},
		loseVolume(namespace, pvc) {
			if (!stopped) errors.guard('loseVolume', () => provisioner.loseVolume(namespace, pvc));
		},
		errors: () => errors.list(),
		logs,
		backlog: () => ({
			waitingPods: scheduler.waiting(),
			timers: kubelet.pendingTimers() + provisioner.pendingTimers(),
		}),
	};
}
