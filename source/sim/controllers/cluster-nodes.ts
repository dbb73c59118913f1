/** The nodes of the simulated cluster: capacity, addresses, and their Node objects. */

import type { SimClusterConfig } from '../config.js';
import type { SimEvent, SimObject, SimStore } from '../store-api.js';
import { apiTime, bytes, milliCpu } from './pod-view.js';

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
	/** The first three octets of the node's pod CIDR (`10.244.0`). */
	podNet: string;
}

interface NodeObject extends SimObject {
	spec?: { unschedulable?: boolean; podCIDR?: string; [key: string]: unknown };
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
	private sorted: NodeInfo[] | null = null;
	private nextIp = 10;

	private nextNet = 0;

	constructor(private readonly config: SimClusterConfig) {
		for (const n of config.nodes) {
			this.byName.set(n.name, {
				name: n.name,
				milliCpu: milliCpu(n.cpu),
				memory: bytes(n.memory),
				unschedulable: false,
				ip: this.allocateIp(),
				podNet: `10.244.${this.nextNet++ % 256}`,
			});
		}
	}

	/** Node addresses 10.0.0.10, 10.0.0.11, ... in configuration order. */
	private allocateIp(): string {
		const n = this.nextIp++;
		return `10.0.${Math.floor(n / 250)}.${n % 250}`;
	}

	/** The nodes, by name. */
	list(): NodeInfo[] {
		this.sorted ??= [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
		return this.sorted;
	}

	/** One node, or undefined. */
	get(name: string): NodeInfo | undefined {
		return this.byName.get(name);
	}

	/** Registers the configured nodes as Node objects (as each node's kubelet would). */
	register(store: SimStore): void {
		this.config.nodes.forEach((n, index) => {
			if (store.get('nodes', undefined, n.name)) return;
			const info = this.byName.get(n.name);
			if (!info) return;
			try {
				store.create('nodes', nodeObject(n.name, n.cpu, n.memory, info.ip, index), {
					who: `system:node:${n.name}`,
				});
			} catch (err) {
				if ((err as { code?: number }).code !== 409) throw err;
			}
		});
	}

	/**
	 * Follows a Node change from the store. Returns true when it may have made room
	 * (a node added, grown or uncordoned).
	 */
	apply(e: SimEvent): boolean {
		const obj = e.object as NodeObject;
		const name = obj.metadata.name;
		const old = this.byName.get(name);
		this.sorted = null;
		if (e.type === 'DELETED') {
			this.byName.delete(name);
			return false;
		}
		const alloc = obj.status?.allocatable ?? obj.status?.capacity;
		const ip = obj.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
		const cidr = /^(\d+\.\d+\.\d+)\.0\/2[0-4]$/.exec(obj.spec?.podCIDR ?? '')?.[1];
		const next: NodeInfo = {
			name,
			milliCpu: alloc?.cpu !== undefined ? milliCpu(alloc.cpu) : (old?.milliCpu ?? 0),
			memory: alloc?.memory !== undefined ? bytes(alloc.memory) : (old?.memory ?? 0),
			unschedulable: obj.spec?.unschedulable === true,
			ip: ip ?? old?.ip ?? this.allocateIp(),
			podNet: cidr ?? old?.podNet ?? `10.244.${this.nextNet++ % 256}`,
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
export function nodeObject(
	name: string,
	cpu: string,
	memory: string,
	ip: string,
	index: number,
): SimObject {
	const now = apiTime();
	const resources = { cpu, memory, pods: '110', 'ephemeral-storage': '100Gi' };
	const cond = (type: string, status: string, reason: string, message: string) => ({
		type,
		status,
		lastHeartbeatTime: now,
		lastTransitionTime: now,
		reason,
		message,
	});
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
		spec: { podCIDR: `10.244.${index}.0/24`, podCIDRs: [`10.244.${index}.0/24`] },
		status: {
			capacity: { ...resources },
			allocatable: { ...resources },
			conditions: [
				cond(
					'MemoryPressure',
					'False',
					'KubeletHasSufficientMemory',
					'kubelet has sufficient memory available',
				),
				cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
				cond(
					'PIDPressure',
					'False',
					'KubeletHasSufficientPID',
					'kubelet has sufficient PID available',
				),
				cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
			],
			addresses: [
				{ type: 'InternalIP', address: ip },
				{ type: 'Hostname', address: name },
			],
			nodeInfo: {
				architecture: 'amd64',
				operatingSystem: 'linux',
				osImage: 'Ubuntu 24.04.1 LTS',
				kernelVersion: '6.8.0-51-generic',
				kubeletVersion: 'v1.32.0',
				kubeProxyVersion: 'v1.32.0',
				containerRuntimeVersion: 'containerd://1.7.24',
			},
			daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
		},
	};
}
