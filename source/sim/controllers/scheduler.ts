/**
 * The scheduler: binds pending pods to a node with room for their requests, or marks them
 * Unschedulable with the real scheduler's message and a FailedScheduling event, and tries
 * them again when room appears (a pod gone or finished, a node added or grown) or when a
 * claim they wait for changes. Event-driven: it keeps per-node usage and per-claim waiters
 * in memory and never scans all pods on a change.
 */

import type { SimClusterConfig } from '../config.js';
import type { SimEvent, SimStore } from '../store-api.js';
import type { ClusterNodes, NodeInfo } from './cluster-nodes.js';
import type { ControllerErrors } from './controller-errors.js';
import type { EventRecorder } from './events.js';
import {
	apiTime,
	type Claim,
	copyOf,
	isTerminal,
	keyOf,
	objectKey,
	type Pod,
	type PodCondition,
	podClaimNames,
	podRequests,
	type Requests,
	splitKey,
} from './pod-view.js';
import { claimClass, SELECTED_NODE } from './storage-class.js';
import { controllerQueue, type WorkQueue } from './work-queue.js';

const WHO = 'system:kube-scheduler';
const SOURCE = { component: 'default-scheduler' };

/** A node's reason for not taking a pod, as the scheduler's filter plugins word it. */
export type FitReason = 'Insufficient cpu' | 'Insufficient memory' | 'node(s) were unschedulable';

/** Reasons preemption cannot fix (the node would not fit even if pods were evicted). */
const UNRESOLVABLE: ReadonlySet<string> = new Set(['node(s) were unschedulable']);

function histogram(reasons: string[]): string {
	const counts = new Map<string, number>();
	for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
	return [...counts]
		.map(([r, n]) => `${n} ${r}`)
		.sort()
		.join(', ');
}

/**
 * The scheduler's FitError message: `0/3 nodes are available: 3 Insufficient memory.
 * preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.`
 * perNode holds each node's filter reasons; preFilter, when set, is a reason that failed
 * before any node was looked at (a missing claim).
 */
export function fitErrorMessage(perNode: FitReason[][], preFilter?: string): string {
	const total = perNode.length;
	if (total === 0) return 'no nodes available to schedule pods';
	let msg = `0/${total} nodes are available:`;
	const preemption: string[] = [];
	if (preFilter) {
		msg += ` ${preFilter}.`;
		for (let i = 0; i < total; i++) preemption.push('Preemption is not helpful for scheduling');
	} else {
		msg += ` ${histogram(perNode.flat())}.`;
		for (const reasons of perNode) {
			preemption.push(
				reasons.some((r) => UNRESOLVABLE.has(r))
					? 'Preemption is not helpful for scheduling'
					: 'No preemption victims found for incoming pod',
			);
		}
	}
	return `${msg} preemption: 0/${total} nodes are available: ${histogram(preemption)}.`;
}

interface Usage {
	node: string;
	req: Requests;
}

interface Assumed {
	uid: string;
	node: string;
}

type ClaimCheck =
	| { ok: true; waitForFirstConsumer: Claim[] }
	| { ok: false; message: string; claims: string[] };

/** The scheduler controller. */
export class Scheduler {
	/** Pods counted on a node: bound and not finished, or assumed while their volumes bind. */
	private readonly usage = new Map<string, Usage>();
	private readonly used = new Map<string, Requests>();
	/** Pods parked until room appears, with their requests. */
	private readonly waitingRoom = new Map<string, Requests>();
	/** Claim key -> pods parked until that claim changes. */
	private readonly waitingClaim = new Map<string, Set<string>>();
	/** Pod key -> claim keys it is parked on. */
	private readonly parkedOn = new Map<string, string[]>();
	/** Pods given a node whose WaitForFirstConsumer volumes are being provisioned. */
	private readonly assumed = new Map<string, Assumed>();
	private roomFreed = false;
	private readonly queue: WorkQueue;

	constructor(
		private readonly store: SimStore,
		private readonly config: SimClusterConfig,
		private readonly nodes: ClusterNodes,
		private readonly events: EventRecorder,
		private readonly errors: ControllerErrors,
	) {
		this.queue = controllerQueue((keys) => this.flush(keys), errors, 'scheduler');
	}

	/** Follows a change of any resource. */
	onChange(e: SimEvent): void {
		if (e.resource === 'pods') this.onPod(e);
		else if (e.resource === 'persistentvolumeclaims') this.onClaim(e);
		else if (e.resource === 'nodes') {
			if (this.nodes.apply(e)) this.freed();
		}
	}

	/** Stops the scheduler. */
	stop(): void {
		this.queue.stop();
	}

	/** How many pods wait for room or a claim (for tests and benchmarks). */
	waiting(): number {
		return this.waitingRoom.size + this.parkedOn.size;
	}

	private onPod(e: SimEvent): void {
		const pod = e.object as Pod;
		const key = keyOf(pod);
		if (e.type === 'DELETED') {
			this.forget(key);
			return;
		}
		const node = pod.spec?.nodeName;
		if (node) {
			this.unpark(key);
			this.assumed.delete(key);
			if (isTerminal(pod)) this.release(key);
			else this.account(key, node, podRequests(pod));
			return;
		}
		if (pod.metadata.deletionTimestamp) {
			this.forget(key);
			return;
		}
		// Our own status writes on parked or assumed pods change nothing worth a retry.
		if (this.waitingRoom.has(key) || this.parkedOn.has(key) || this.assumed.has(key)) return;
		this.queue.add(key);
	}

	private onClaim(e: SimEvent): void {
		const key = keyOf(e.object);
		const waiters = this.waitingClaim.get(key);
		if (!waiters) return;
		for (const pod of waiters) this.queue.add(pod);
	}

	private freed(): void {
		this.roomFreed = true;
		this.queue.kick();
	}

	private account(key: string, node: string, req: Requests): void {
		const old = this.usage.get(key);
		if (old && old.node === node) return;
		if (old) this.release(key);
		this.usage.set(key, { node, req });
		const u = this.used.get(node) ?? { milliCpu: 0, memory: 0 };
		this.used.set(node, { milliCpu: u.milliCpu + req.milliCpu, memory: u.memory + req.memory });
	}

	private release(key: string): void {
		const old = this.usage.get(key);
		if (!old) return;
		this.usage.delete(key);
		const u = this.used.get(old.node);
		if (u) {
			this.used.set(old.node, {
				milliCpu: u.milliCpu - old.req.milliCpu,
				memory: u.memory - old.req.memory,
			});
		}
		this.freed();
	}

	private forget(key: string): void {
		this.unpark(key);
		this.assumed.delete(key);
		this.release(key);
	}

	private unpark(key: string): void {
		this.waitingRoom.delete(key);
		const claims = this.parkedOn.get(key);
		if (!claims) return;
		this.parkedOn.delete(key);
		for (const c of claims) {
			const set = this.waitingClaim.get(c);
			set?.delete(key);
			if (set && set.size === 0) this.waitingClaim.delete(c);
		}
	}

	private parkOnClaims(key: string, claims: string[]): void {
		this.parkedOn.set(key, claims);
		for (const c of claims) {
			let set = this.waitingClaim.get(c);
			if (!set) {
				set = new Set();
				this.waitingClaim.set(c, set);
			}
			set.add(key);
		}
	}

	private free(node: NodeInfo): Requests {
		const u = this.used.get(node.name) ?? { milliCpu: 0, memory: 0 };
		return { milliCpu: node.milliCpu - u.milliCpu, memory: node.memory - u.memory };
	}

	private reasonsOn(node: NodeInfo, req: Requests): FitReason[] {
		if (node.unschedulable) return ['node(s) were unschedulable'];
		const free = this.free(node);
		const reasons: FitReason[] = [];
		if (req.milliCpu > free.milliCpu) reasons.push('Insufficient cpu');
		if (req.memory > free.memory) reasons.push('Insufficient memory');
		return reasons;
	}

	private fitsSomewhere(req: Requests): boolean {
		return this.nodes.list().some((n) => this.reasonsOn(n, req).length === 0);
	}

	private flush(keys: string[]): void {
		const tried = new Set<string>();
		if (this.roomFreed) {
			this.roomFreed = false;
			// Oldest first; only pods that fit somewhere now are tried (each bind takes room at
			// once), so the others see no write and no event.
			for (const [key, req] of [...this.waitingRoom]) {
				if (!this.waitingRoom.has(key) || !this.fitsSomewhere(req)) continue;
				tried.add(key);
				this.errors.guard(`schedule ${key}`, () => this.schedule(key));
			}
		}
		for (const key of keys) {
			if (!tried.has(key)) this.errors.guard(`schedule ${key}`, () => this.schedule(key));
		}
	}

	private schedule(key: string): void {
		const { namespace, name } = splitKey(key);
		const obj = this.store.get('pods', namespace, name);
		if (!obj) {
			this.forget(key);
			return;
		}
		const pod = obj as Pod;
		if (pod.spec?.nodeName || pod.metadata.deletionTimestamp) return;
		this.unpark(key);
		const claims = this.checkClaims(pod);
		const assumed = this.assumed.get(key);
		if (assumed && assumed.uid !== pod.metadata.uid) {
			this.assumed.delete(key);
			this.release(key);
		}
		if (!claims.ok) {
			if (this.assumed.delete(key)) this.release(key);
			// Parked before the write, so the write's own change does not queue it again.
			this.parkOnClaims(key, claims.claims);
			this.unschedulable(
				pod,
				fitErrorMessage(
					this.nodes.list().map(() => []),
					claims.message,
				),
			);
			return;
		}
		const mine = this.assumed.get(key);
		if (mine) {
			// Waiting for its WaitForFirstConsumer volumes: bind once they are all Bound.
			if (claims.waitForFirstConsumer.length === 0) {
				this.assumed.delete(key);
				this.bind(pod, mine.node);
			} else {
				this.parkOnClaims(key, claims.waitForFirstConsumer.map(keyOf));
			}
			return;
		}
		const req = podRequests(pod);
		const nodes = this.nodes.list();
		let best: NodeInfo | undefined;
		let bestScore = Number.NEGATIVE_INFINITY;
		const perNode: FitReason[][] = [];
		for (const n of nodes) {
			const reasons = this.reasonsOn(n, req);
			perNode.push(reasons);
			if (reasons.length > 0) continue;
			const score = this.score(n, req);
			if (score > bestScore) {
				best = n;
				bestScore = score;
			}
		}
		if (!best) {
			this.waitingRoom.set(key, req);
			this.unschedulable(pod, fitErrorMessage(perNode));
			return;
		}
		if (claims.waitForFirstConsumer.length > 0) {
			this.assume(key, pod, best.name, req, claims.waitForFirstConsumer);
			return;
		}
		this.bind(pod, best.name);
	}

	/** LeastAllocated scoring: the node left with the largest free share wins (ties: by name). */
	private score(node: NodeInfo, req: Requests): number {
		const free = this.free(node);
		const cpu = node.milliCpu > 0 ? (free.milliCpu - req.milliCpu) / node.milliCpu : 0;
		const mem = node.memory > 0 ? (free.memory - req.memory) / node.memory : 0;
		return (cpu + mem) / 2;
	}

	private checkClaims(pod: Pod): ClaimCheck {
		const namespace = pod.metadata.namespace;
		const wffc: Claim[] = [];
		for (const claimName of podClaimNames(pod)) {
			const key = objectKey(namespace, claimName);
			const pvc = this.store.get('persistentvolumeclaims', namespace, claimName) as
				| Claim
				| undefined;
			if (!pvc) {
				return {
					ok: false,
					message: `persistentvolumeclaim "${claimName}" not found`,
					claims: [key],
				};
			}
			if (pvc.metadata.deletionTimestamp) {
				return {
					ok: false,
					message: `persistentvolumeclaim "${claimName}" is being deleted`,
					claims: [key],
				};
			}
			const phase = pvc.status?.phase;
			if (phase === 'Bound') continue;
			if (phase === 'Lost') {
				return {
					ok: false,
					message: `persistentvolumeclaim "${claimName}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"`,
					claims: [key],
				};
			}
			const cls = claimClass(this.config, pvc);
			if (cls.kind === 'class' && cls.cls.bindingMode === 'WaitForFirstConsumer') {
				wffc.push(pvc);
				continue;
			}
			return {
				ok: false,
				message: 'pod has unbound immediate PersistentVolumeClaims',
				claims: [key],
			};
		}
		return { ok: true, waitForFirstConsumer: wffc };
	}

	/** Reserves room on the node and asks the provisioner for the volumes there. */
	private assume(key: string, pod: Pod, node: string, req: Requests, claims: Claim[]): void {
		this.account(key, node, req);
		this.assumed.set(key, { uid: pod.metadata.uid ?? '', node });
		for (const pvc of claims) {
			if (pvc.metadata.annotations?.[SELECTED_NODE]) continue;
			const next = copyOf<Claim>(pvc);
			next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [SELECTED_NODE]: node };
			this.store.update('persistentvolumeclaims', next, { who: WHO });
		}
		this.parkOnClaims(key, claims.map(keyOf));
	}

	private bind(pod: Pod, node: string): void {
		const next = copyOf<Pod>(pod);
		next.spec = { ...(next.spec ?? {}), nodeName: node };
		const status = { ...(next.status ?? {}) };
		status.phase = 'Pending';
		status.conditions = withCondition(status.conditions, {
			type: 'PodScheduled',
			status: 'True',
			lastProbeTime: null,
		});
		next.status = status;
		const written = this.store.update('pods', next, { who: WHO });
		this.account(keyOf(pod), node, podRequests(pod));
		this.events.record(
			written,
			'Normal',
			'Scheduled',
			`Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`,
			SOURCE,
		);
	}

	private unschedulable(pod: Pod, message: string): void {
		const cond = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
		let written = pod;
		const same =
			pod.status?.phase === 'Pending' &&
			cond?.status === 'False' &&
			cond.reason === 'Unschedulable' &&
			cond.message === message;
		if (!same) {
			const next = copyOf<Pod>(pod);
			const status = { ...(next.status ?? {}) };
			status.phase = 'Pending';
			status.conditions = withCondition(status.conditions, {
				type: 'PodScheduled',
				status: 'False',
				reason: 'Unschedulable',
				message,
				lastProbeTime: null,
			});
			next.status = status;
			written = this.store.update('pods', next, { who: WHO }) as Pod;
		}
		this.events.record(written, 'Warning', 'FailedScheduling', message, SOURCE);
	}
}

/** Sets a condition, keeping its lastTransitionTime when its status did not change. */
export function withCondition(
	conditions: PodCondition[] | undefined,
	cond: PodCondition,
): PodCondition[] {
	const list = [...(conditions ?? [])];
	const i = list.findIndex((c) => c.type === cond.type);
	const old = i >= 0 ? list[i] : undefined;
	const next: PodCondition = {
		...cond,
		lastTransitionTime:
			old && old.status === cond.status && old.lastTransitionTime
				? old.lastTransitionTime
				: apiTime(),
	};
	if (i >= 0) list[i] = next;
	else list.push(next);
	return list;
}
