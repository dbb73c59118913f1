/**
 * The volume provisioner and the PVC protection controller: binds Pending claims after the
 * class's provisioning delay (Immediate at once, WaitForFirstConsumer once the scheduler has
 * picked a node for a pod using the claim), leaves claims of an unknown class Pending with a
 * ProvisioningFailed event, and removes the `kubernetes.io/pvc-protection` finalizer of a
 * deleted claim once no scheduled, unfinished pod uses it.
 */

import type { SimClusterConfig } from '../config.js';
import type { SimEvent, SimStore } from '../store-api.js';
import type { ControllerErrors } from './controller-errors.js';
import type { EventRecorder } from './events.js';
import {
	type Claim,
	copyOf,
	isTerminal,
	keyOf,
	objectKey,
	type Pod,
	podClaimNames,
	splitKey,
} from './pod-view.js';
import { ScaledTimers } from './scaled-timers.js';
import { claimClass, PVC_PROTECTION, SELECTED_NODE } from './storage-class.js';
import { controllerQueue, type WorkQueue } from './work-queue.js';

/** The provisioner name written into claims' annotations. */
export const PROVISIONER = 'sim.ctpool.dev/hostpath';
const PROVISIONER_SOURCE = { component: `${PROVISIONER}_provisioner-0` };
const PV_CONTROLLER = { component: 'persistentvolume-controller' };
const WHO_PV = 'system:serviceaccount:kube-system:persistent-volume-binder';
const WHO_PROTECTION = 'system:serviceaccount:kube-system:pvc-protection-controller';

/** The provisioner controller. */
export class Provisioner {
	/** Claim key -> keys of the scheduled, unfinished pods using it. */
	private readonly users = new Map<string, Set<string>>();
	/** Pod key -> claim keys it is counted as a user of. */
	private readonly usesOf = new Map<string, string[]>();
	/** Claim uids whose waiting/failure event was already written. */
	private readonly announced = new Set<string>();
	private readonly timers: ScaledTimers;
	private readonly queue: WorkQueue;

	constructor(
		private readonly store: SimStore,
		private readonly config: SimClusterConfig,
		private readonly events: EventRecorder,
		private readonly errors: ControllerErrors,
	) {
		this.timers = new ScaledTimers(config.timeScale, errors, 'provisioner');
		this.queue = controllerQueue(
			(keys) => {
				for (const key of keys) this.errors.guard(`provisioner ${key}`, () => this.sync(key));
			},
			errors,
			'provisioner',
		);
	}

	/** Follows a change of any resource. */
	onChange(e: SimEvent): void {
		if (e.resource === 'pods') this.onPod(e);
		else if (e.resource === 'persistentvolumeclaims') {
			const uid = e.object.metadata.uid ?? '';
			if (e.type === 'DELETED') {
				this.timers.clearOwner(uid);
				this.announced.delete(uid);
				return;
			}
			this.queue.add(keyOf(e.object));
		}
	}

	/** Stops every timer. */
	stop(): void {
		this.queue.stop();
		this.timers.stop();
	}

	/** Marks a claim Lost (its volume is gone). */
	loseVolume(namespace: string, name: string): void {
		const obj = this.store.get('persistentvolumeclaims', namespace, name);
		if (!obj) return;
		const pvc = copyOf<Claim>(obj);
		this.timers.clearOwner(pvc.metadata.uid ?? '');
		pvc.status = { ...(pvc.status ?? {}), phase: 'Lost' };
		const written = this.store.update('persistentvolumeclaims', pvc, { who: WHO_PV });
		this.events.record(
			written,
			'Warning',
			'ClaimLost',
			'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
			PV_CONTROLLER,
		);
	}

	/** Pending provisioning timers (for tests and benchmarks). */
	pendingTimers(): number {
		return this.timers.size();
	}

	/** The number of live pods using a claim (for tests). */
	usersOf(namespace: string, name: string): number {
		return this.users.get(objectKey(namespace, name))?.size ?? 0;
	}

	private onPod(e: SimEvent): void {
		const pod = e.object as Pod;
		const key = keyOf(pod);
		const live = e.type !== 'DELETED' && Boolean(pod.spec?.nodeName) && !isTerminal(pod);
		const next = live ? podClaimNames(pod).map((c) => objectKey(pod.metadata.namespace, c)) : [];
		const old = this.usesOf.get(key) ?? [];
		if (old.length === next.length && old.every((c, i) => c === next[i])) return;
		for (const c of old) {
			if (next.includes(c)) continue;
			const set = this.users.get(c);
			set?.delete(key);
			if (set && set.size === 0) this.users.delete(c);
			// The claim may be waiting for its last user to go.
			this.queue.add(c);
		}
		for (const c of next) {
			let set = this.users.get(c);
			if (!set) {
				set = new Set();
				this.users.set(c, set);
			}
			set.add(key);
		}
		if (next.length > 0) this.usesOf.set(key, next);
		else this.usesOf.delete(key);
	}

	private sync(key: string): void {
		const { namespace, name } = splitKey(key);
		const obj = this.store.get('persistentvolumeclaims', namespace, name);
		if (!obj) return;
		const pvc = obj as Claim;
		const uid = pvc.metadata.uid ?? '';
		if (pvc.metadata.deletionTimestamp) {
			this.timers.clearOwner(uid);
			this.unprotect(pvc, key);
			return;
		}
		const phase = pvc.status?.phase;
		if (phase === 'Bound' || phase === 'Lost') return;
		if (phase !== 'Pending') {
			const next = copyOf<Claim>(pvc);
			next.status = { ...(next.status ?? {}), phase: 'Pending' };
			this.store.update('persistentvolumeclaims', next, { who: WHO_PV });
			return; // The write comes back as a change and continues here.
		}
		if (this.timers.has(uid, 'bind')) return;
		const cls = claimClass(this.config, pvc);
		if (cls.kind === 'none') {
			this.announce(
				pvc,
				'Normal',
				'FailedBinding',
				'no persistent volumes available for this claim and no storage class is set',
				PV_CONTROLLER,
			);
			return;
		}
		if (cls.kind === 'unknown') {
			this.announce(
				pvc,
				'Warning',
				'ProvisioningFailed',
				`storageclass.storage.k8s.io "${cls.name}" not found`,
				PV_CONTROLLER,
			);
			return;
		}
		if (
			cls.cls.bindingMode === 'WaitForFirstConsumer' &&
			!pvc.metadata.annotations?.[SELECTED_NODE]
		) {
			this.announce(
				pvc,
				'Normal',
				'WaitForFirstConsumer',
				'waiting for first consumer to be created before binding',
				PV_CONTROLLER,
			);
			return;
		}
		this.events.record(
			pvc,
			'Normal',
			'Provisioning',
			`External provisioner is provisioning volume for claim "${namespace}/${name}"`,
			PROVISIONER_SOURCE,
		);
		this.timers.set(uid, 'bind', cls.cls.provisionDelayMs, () => this.bind(key, uid, cls.cls.name));
	}

	private announce(
		pvc: Claim,
		type: 'Normal' | 'Warning',
		reason: string,
		message: string,
		source: { component: string },
	): void {
		const uid = pvc.metadata.uid ?? '';
		if (this.announced.has(uid)) return;
		this.announced.add(uid);
		this.events.record(pvc, type, reason, message, source);
	}

	private bind(key: string, uid: string, className: string): void {
		const { namespace, name } = splitKey(key);
		const obj = this.store.get('persistentvolumeclaims', namespace, name);
		if (!obj || obj.metadata.uid !== uid || obj.metadata.deletionTimestamp) return;
		const pvc = copyOf<Claim>(obj);
		if (pvc.status?.phase !== 'Pending') return;
		const volume = `pvc-${uid}`;
		const spec = pvc.spec ?? {};
		pvc.spec = {
			...spec,
			storageClassName: spec.storageClassName || className,
			volumeName: volume,
			volumeMode: spec.volumeMode ?? 'Filesystem',
		};
		pvc.metadata.annotations = {
			...(pvc.metadata.annotations ?? {}),
			'pv.kubernetes.io/bind-completed': 'yes',
			'pv.kubernetes.io/bound-by-controller': 'yes',
			'volume.beta.kubernetes.io/storage-provisioner': PROVISIONER,
			'volume.kubernetes.io/storage-provisioner': PROVISIONER,
		};
		pvc.status = {
			...(pvc.status ?? {}),
			phase: 'Bound',
			accessModes: spec.accessModes ?? ['ReadWriteOnce'],
			capacity: { storage: spec.resources?.requests?.storage ?? '1Gi' },
		};
		const written = this.store.update('persistentvolumeclaims', pvc, { who: WHO_PV });
		this.events.record(
			written,
			'Normal',
			'ProvisioningSucceeded',
			`Successfully provisioned volume ${volume}`,
			PROVISIONER_SOURCE,
		);
	}

	private unprotect(pvc: Claim, key: string): void {
		const finalizers = pvc.metadata.finalizers ?? [];
		if (!finalizers.includes(PVC_PROTECTION)) return;
		if ((this.users.get(key)?.size ?? 0) > 0) return;
		const next = copyOf<Claim>(pvc);
		next.metadata.finalizers = finalizers.filter((f) => f !== PVC_PROTECTION);
		this.store.update('persistentvolumeclaims', next, { who: WHO_PROTECTION });
	}
}
