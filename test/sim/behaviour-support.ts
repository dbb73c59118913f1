/** Helpers for the controller behaviour tests: a real Store with the real controllers. */

import { afterEach } from 'vitest';
import { defaultClusterConfig, type SimClusterConfig } from '../../source/sim/config.js';
import { type SimControllers, startControllers } from '../../source/sim/controllers/index.js';
import { Store } from '../../source/sim/store.js';
import type { SimObject } from '../../source/sim/store-api.js';

/** The namespace the tests use. */
export const NS = 'corral';

/** A store with the controllers running over it, at test pace. */
export interface TestCluster {
	store: Store;
	config: SimClusterConfig;
	controllers: SimControllers;
	/** Stops the controllers. */
	close(): void;
}

/** Starts a store and its controllers; timeScale 0.01 unless overridden. */
export function startTestCluster(over: Partial<SimClusterConfig> = {}): TestCluster {
	const config = defaultClusterConfig({ timeScale: 0.01, ...over });
	const store = new Store({ defaultGraceSeconds: config.defaultGraceSeconds });
	store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
	const controllers = startControllers(store, config);
	return { store, config, controllers, close: () => controllers.stop() };
}

/**
 * For a file whose tests each start their own store cluster: registers closing it after
 * each test, and returns the starter to call inside a test.
 */
export function clusterPerTest(): (over?: Partial<SimClusterConfig>) => TestCluster {
	let current: TestCluster | undefined;
	afterEach(() => {
		current?.close();
		current = undefined;
	});
	return (over = {}) => {
		current = startTestCluster(over);
		return current;
	};
}

/** Corral's privileged bootstrap, in the contract's shape. */
export const BOOTSTRAP = [
	'/bin/sh',
	'-c',
	"set -e; if [ ! -e /corral-rootfs/.corral-seeded ]; then cp -a --one-file-system / /corral-rootfs; touch /corral-rootfs/.corral-seeded; fi; for d in proc sys dev; do mount --rbind /$d /corral-rootfs/$d; done; exec chroot /corral-rootfs /bin/sh -c 'cd /root 2>/dev/null || cd /; exec sleep infinity'",
];

/** Options of a test pod. */
export interface PodOptions {
	cpu?: string;
	memory?: string;
	image?: string;
	claim?: string;
	containers?: number;
	/** The command (default `sleep infinity`); null runs the image's own entrypoint. */
	command?: string[] | null;
	/** Run privileged (Corral's privileged members). */
	privileged?: boolean;
	/** Where the claim is mounted (default /data). */
	mountPath?: string;
}

/** A pod manifest with one container `ct` (or more) and an optional claim mounted at /data. */
export function podManifest(name: string, o: PodOptions = {}): SimObject {
	const count = o.containers ?? 1;
	const containers = Array.from({ length: count }, (_, i) => ({
		name: i === 0 ? 'ct' : `side-${i}`,
		image: o.image ?? 'ghcr.io/example/desktop:1',
		...(o.command === null ? {} : { command: o.command ?? ['sleep', 'infinity'] }),
		...(o.privileged ? { securityContext: { privileged: true } } : {}),
		resources: { requests: { cpu: o.cpu ?? '1', memory: o.memory ?? '1Gi' } },
		...(o.claim && i === 0
			? { volumeMounts: [{ name: 'data', mountPath: o.mountPath ?? '/data' }] }
			: {}),
	}));
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: { name, namespace: NS, labels: { app: 'test' } },
		spec: {
			containers,
			...(o.claim
				? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: o.claim } }] }
				: {}),
		},
	};
}

/** A PVC manifest. */
export function pvcManifest(name: string, storageClassName?: string): SimObject {
	return {
		apiVersion: 'v1',
		kind: 'PersistentVolumeClaim',
		metadata: { name, namespace: NS },
		spec: {
			accessModes: ['ReadWriteOnce'],
			resources: { requests: { storage: '5Gi' } },
			...(storageClassName !== undefined ? { storageClassName } : {}),
		},
	};
}

/** A pod's typed status fields the tests read. */
export interface PodView {
	metadata: SimObject['metadata'];
	spec: { nodeName?: string };
	status: {
		phase?: string;
		podIP?: string;
		hostIP?: string;
		conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
		containerStatuses?: Array<{
			name: string;
			ready?: boolean;
			restartCount?: number;
			state?: Record<
				string,
				{ reason?: string; message?: string; exitCode?: number; startedAt?: string }
			>;
			lastState?: Record<string, { reason?: string; exitCode?: number }>;
		}>;
	};
}

/** Reads a pod as a PodView, or undefined. */
export function pod(store: Store, name: string): PodView | undefined {
	return store.get('pods', NS, name) as unknown as PodView | undefined;
}

/** A condition of a pod. */
export function condition(p: PodView | undefined, type: string) {
	return p?.status.conditions?.find((c) => c.type === type);
}

/** The waiting reason of a pod's first container. */
export function waitingReason(p: PodView | undefined): string | undefined {
	return p?.status.containerStatuses?.[0]?.state?.waiting?.reason;
}

/** Whether a pod is Running and Ready. */
export function isReady(p: PodView | undefined): boolean {
	return p?.status.phase === 'Running' && condition(p, 'Ready')?.status === 'True';
}

/** The events about an object, as `reason: message`. */
export function eventsAbout(
	store: Store,
	name: string,
): Array<{
	reason: string;
	message: string;
	type: string;
	count: number;
	source: { component: string; host?: string };
}> {
	return store
		.list('events', { namespace: NS })
		.filter((e) => (e.involvedObject as { name?: string }).name === name)
		.map(
			(e) =>
				e as unknown as {
					reason: string;
					message: string;
					type: string;
					count: number;
					source: { component: string; host?: string };
				},
		);
}
