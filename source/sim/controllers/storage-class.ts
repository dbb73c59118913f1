/** Which StorageClass a PVC gets: its own, or the cluster default when it names none. */

import type { SimClusterConfig, SimStorageClass } from '../config.js';
import type { Claim } from './pod-view.js';

/** The class a PVC resolves to. */
export type ClassChoice =
	| { kind: 'class'; cls: SimStorageClass }
	| { kind: 'none' }
	| { kind: 'unknown'; name: string };

/** Resolves a PVC's class: an empty or absent storageClassName means the default class. */
export function claimClass(config: SimClusterConfig, pvc: Claim): ClassChoice {
	const name = pvc.spec?.storageClassName;
	if (name === undefined || name === null || name === '') {
		const def = config.storageClasses.find((c) => c.isDefault);
		return def ? { kind: 'class', cls: def } : { kind: 'none' };
	}
	const cls = config.storageClasses.find((c) => c.name === name);
	return cls ? { kind: 'class', cls } : { kind: 'unknown', name };
}

/** The annotation the scheduler sets on a WaitForFirstConsumer claim once its pod has a node. */
export const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/** The finalizer the store adds to every PVC. */
export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
