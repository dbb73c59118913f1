/**
 * Room on the nodes for a pod: what a pod requests, what each node has free (allocatable
 * less the requests of the pods bound to it), the roomiest node, and how many more pods fit
 * on a node like the largest. Plain data in, plain data out.
 */

import { parseQuantity } from './quantity.js';

/** CPU in millicores and memory in bytes: what a pod asks for or a node has. */
export interface Requests {
	milliCpu: number;
	memory: number;
}

/** The resources of one container, as the API hands them over. */
interface ContainerResources {
	resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

/** A pod, as far as its requests go. */
export interface RequestingPod {
	spec?: { containers?: ContainerResources[]; initContainers?: ContainerResources[] };
}

function amount(q: unknown, scale: number): number {
	const v = q === undefined || q === null ? null : parseQuantity(String(q));
	return v === null || v < 0 ? 0 : Math.round(v * scale);
}

function containerRequests(c: ContainerResources): Requests {
	const req = c.resources?.requests ?? {};
	const lim = c.resources?.limits ?? {};
	// the API server defaults a missing request to the limit
	return {
		milliCpu: amount(req.cpu ?? lim.cpu, 1000),
		memory: amount(req.memory ?? lim.memory, 1),
	};
}

/** A pod's effective requests: the sum over its containers, at least its largest init container. */
export function podRequests(pod: RequestingPod): Requests {
	const total: Requests = { milliCpu: 0, memory: 0 };
	for (const c of pod.spec?.containers ?? []) {
		const r = containerRequests(c);
		total.milliCpu += r.milliCpu;
		total.memory += r.memory;
	}
	for (const c of pod.spec?.initContainers ?? []) {
		const r = containerRequests(c);
		total.milliCpu = Math.max(total.milliCpu, r.milliCpu);
		total.memory = Math.max(total.memory, r.memory);
	}
	return total;
}

/** One node: what it can give, what its pods take, and whether it takes new pods. */
export interface NodeRoom {
	name: string;
	allocatable: Requests;
	requested: Requests;
	/** Cordoned (spec.unschedulable) or not Ready: no new pods. */
	closed: boolean;
}

/** A Node object, as far as room goes. */
export interface NodeObjectLike {
	metadata?: { name?: string };
	spec?: { unschedulable?: boolean };
	status?: {
		allocatable?: Record<string, unknown>;
		capacity?: Record<string, unknown>;
		conditions?: Array<{ type?: string; status?: string }>;
	};
}

/** A pod, as far as where it runs and what it takes goes. */
export interface PlacedPod extends RequestingPod {
	spec?: RequestingPod['spec'] & { nodeName?: string };
	status?: { phase?: string };
}

/** The room on each node: allocatable less the requests of its live pods, by name. */
export function nodeRooms(
	nodes: readonly NodeObjectLike[],
	pods: readonly PlacedPod[],
): NodeRoom[] {
	const used = new Map<string, Requests>();
	for (const p of pods) {
		const node = p.spec?.nodeName;
		const phase = p.status?.phase;
		if (!node || phase === 'Succeeded' || phase === 'Failed') continue;
		const r = podRequests(p);
		const u = used.get(node) ?? { milliCpu: 0, memory: 0 };
		used.set(node, { milliCpu: u.milliCpu + r.milliCpu, memory: u.memory + r.memory });
	}
	return nodes
		.map((n) => {
			const alloc = n.status?.allocatable ?? n.status?.capacity ?? {};
			const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
			const name = n.metadata?.name ?? '';
			return {
				name,
				allocatable: { milliCpu: amount(alloc.cpu, 1000), memory: amount(alloc.memory, 1) },
				requested: used.get(name) ?? { milliCpu: 0, memory: 0 },
				closed: n.spec?.unschedulable === true || (ready !== undefined && ready.status !== 'True'),
			};
		})
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** What a node has free (never below zero). */
export function freeOn(n: NodeRoom): Requests {
	return {
		milliCpu: Math.max(0, n.allocatable.milliCpu - n.requested.milliCpu),
		memory: Math.max(0, n.allocatable.memory - n.requested.memory),
	};
}

/** How many pods of these requests fit in the given room. */
export function fitCount(room: Requests, req: Requests): number {
	const by = (have: number, want: number) => (want <= 0 ? Number.POSITIVE_INFINITY : have / want);
	const n = Math.floor(Math.min(by(room.milliCpu, req.milliCpu), by(room.memory, req.memory)));
	return Number.isFinite(n) ? n : 0;
}

/**
 * The open node closest to fitting the request: the one whose scarcer resource covers the
 * largest share of what is asked; null when no node takes pods.
 */
export function roomiestNode(rooms: readonly NodeRoom[], req: Requests): NodeRoom | null {
	const share = (n: NodeRoom) => {
		const f = freeOn(n);
		const cpu = req.milliCpu > 0 ? f.milliCpu / req.milliCpu : Number.POSITIVE_INFINITY;
		const mem = req.memory > 0 ? f.memory / req.memory : Number.POSITIVE_INFINITY;
		return Math.min(cpu, mem);
	};
	let best: NodeRoom | null = null;
	for (const n of rooms) if (!n.closed && (!best || share(n) > share(best))) best = n;
	return best;
}

/** The node with the most allocatable room (memory first, then cpu); null without nodes. */
export function largestNode(rooms: readonly NodeRoom[]): NodeRoom | null {
	let best: NodeRoom | null = null;
	for (const n of rooms)
		if (
			!best ||
			n.allocatable.memory > best.allocatable.memory ||
			(n.allocatable.memory === best.allocatable.memory &&
				n.allocatable.milliCpu > best.allocatable.milliCpu)
		)
			best = n;
	return best;
}

/** CPU as Kubernetes writes it: whole cores (`2`), else millicores (`500m`). */
export function formatCpu(milliCpu: number): string {
	return milliCpu % 1000 === 0 ? String(milliCpu / 1000) : `${milliCpu}m`;
}

/** Memory in the largest binary unit that keeps one decimal at most (`4Gi`, `1.5Gi`, `512Mi`). */
export function formatMemory(bytes: number): string {
	const units = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const;
	for (const [i, unit] of units.entries()) {
		const size = 2 ** (10 * (6 - i));
		if (bytes >= size) {
			const v = bytes / size;
			return `${Number.isInteger(v) ? v : Number(v.toFixed(1))}${unit}`;
		}
	}
	return String(bytes);
}

/** `cpu 2, memory 4Gi`. */
export function formatRequests(r: Requests): string {
	return `cpu ${formatCpu(r.milliCpu)}, memory ${formatMemory(r.memory)}`;
}
