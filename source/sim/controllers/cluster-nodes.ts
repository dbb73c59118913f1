/** The nodes of the simulated cluster: capacity, addresses, and their Node objects. */

import type { SimClusterConfig } from '../config.js';
import type { SimEvent, SimObject, SimStore } from '../store-api.js';
import { apiTime, bytes, milliCpu } from './pod-facts.js';

/** One node as the scheduler and kubelet see it. */
export interface NodeInfo {
	name: string;
	/** Allocatable CPU in millicores. */
	milliCpu: number;
	/** Allocatable memory in bytes. */
	memory: number;
	/** Cordoned (spec.unschedulable). */
	unschedulable: boolean;
	/** The node's InternalIP. */
	ip: string;
}

interface NodeObject extends SimObject {
	spec?: { unschedulable?: boolean; [key: string]: unknown };
	status?: {
		allocatable?: Record<string, string>;
		capacity?: Record<string, string>;
		addresses?: Array<{ type: string; address: string }>;
		[key: string]: unknown;
	};
}

/** The node set: starts from the configuration and follows the store's Node objects. */
export class ClusterNodes {
	private readonly byName = new Map<string, NodeInfo>();
	private nextIp = 10;

	constructor(private readonly config: SimClusterConfig) {
		for (const n of config.nodes) {
			this.byName.set(n.name, {
				name: n.name,
				milliCpu: milliCpu(n.cpu),
				memory: bytes(n.memory),
				unschedulable: false,
				ip: this.allocateIp(),
			});
		}
	}

	private allocateIp(): string {
		const n = this.nextIp++;
		return `10.0.${Math.floor(n / 250)}.${(n % 250) + 1}`;
	}

	/** The nodes, by name. */
	list(): NodeInfo[] {
		return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
	}

	/** One node, or undefined. */
	get(name: string): NodeInfo | undefined {
		return this.byName.get(name);
	}

	/** Registers the configured nodes as Node objects (as each node's kubelet would). */
	register(store: SimStore): void {
		for (const n of this.config.nodes) {
			if (store.get('nodes', undefined, n.name)) continue;
			const info = this.byName.get(n.name);
			if (!info) continue;
			try {
				store.create('nodes', nodeObject(n.name, n.cpu, n.memory, info.ip), {
					who: `system:node:${n.name}`,
				});
			} catch (err) {
				if ((err as { code?: number }).code !== 409) throw err;
			}
		}
	}

	/**
	 * Follows a Node change from the store. Returns true when it may have made room
	 * (a node added, grown or uncordoned).
	 */
	apply(e: SimEvent): boolean {
		const obj = e.object as NodeObject;
		const name = obj.metadata.name;
		const old = this.byName.get(name);
		if (e.type === 'DELETED') {
			this.byName.delete(name);
			return false;
		}
		const alloc = obj.status?.allocatable ?? obj.status?.capacity;
		const ip = obj.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
		const next: NodeInfo = {
			name,
			milliCpu: alloc?.cpu !== undefined ? milliCpu(alloc.cpu) : (old?.milliCpu ?? 0),
			memory: alloc?.memory !== undefined ? bytes(alloc.memory) : (old?.memory ?? 0),
			unschedulable: obj.spec?.unschedulable === true,
			ip: ip ?? old?.ip ?? this.allocateIp(),
		};
		this.byName.set(name, next);
		if (!old) return true;
		return (
			next.milliCpu > old.milliCpu ||
			next.memory > old.memory ||
			(old.unschedulable && !next.unschedulable)
		);
	}
}

/** A Node object as a kubelet registers it. */
export function nodeObject(name: string, cpu: string, memory: string, ip: string): SimObject {
	const now = apiTime();
	const resources = { cpu, memory, pods: '110', 'ephemeral-storage': '100Gi' };
	return {
		apiVersion: 'v1',
		kind: 'Node',
		metadata: {
			name,
			labels: {
				'kubernetes.io/hostname': name,
				'kubernetes.io/os': 'linux',
				'kubernetes.io/arch': 'amd64',
				'beta.kubernetes.io/os': 'linux',
				'beta.kubernetes.io/arch': 'amd64',
			},
		},
		spec: {},
		status: {
			capacity: { ...resources },
			allocatable: { ...resources },
			conditions: [
				{
					type: 'Ready',
					status: 'True',
					reason: 'KubeletReady',
					message: 'kubelet is posting ready status',
					lastHeartbeatTime: now,
					lastTransitionTime: now,
				},
			],
			addresses: [
				{ type: 'InternalIP', address: ip },
				{ type: 'Hostname', address: name },
			],
			nodeInfo: {
				architecture: 'amd64',
				operatingSystem: 'linux',
				osImage: 'Simulated Linux',
				kernelVersion: '6.1.0-sim',
				kubeletVersion: 'v1.32.0',
				kubeProxyVersion: 'v1.32.0',
				containerRuntimeVersion: 'containerd://1.7.24',
				machineID: '',
				systemUUID: '',
				bootID: '',
			},
		},
	};
}
