/** The watched objects of a namespace, by kind and name, and which members each change touches. */

import type { KubeObject } from '../../kube/objects.js';
import type { WatchChange, WatchKind } from '../../kube/pool-watch.js';
import {
	type ConfigMapObject,
	configMapName,
	type LeaseObject,
	leaseName,
	memberOfLease,
	memberOfPvc,
	POOL_LABEL,
	type PodObject,
	type PvcObject,
	poolOfConfigMap,
	pvcName,
} from '../../pool/index.js';
import { consoleObject } from './bounded-object.js';

/** What a batch touched: per pool, the members whose objects changed, or 'all' for the pool itself. */
export type DirtyPools = Map<string, Set<string> | 'all'>;

/** The objects of one pool. */
export interface PoolObjectSet {
	configMap: ConfigMapObject | null;
	pods: PodObject[];
	pvcs: PvcObject[];
	leases: LeaseObject[];
}

/** The pods, PVCs and Leases of one member (by name; the pool label is checked by the model). */
export interface MemberObjectSet {
	pod: PodObject | null;
	pvc: PvcObject | null;
	lease: LeaseObject | null;
}

function poolOf(o: KubeObject | undefined): string | null {
	return o?.metadata.labels?.[POOL_LABEL] ?? null;
}

/** The member an object of a kind names (pods by their own name), or null (ConfigMaps). */
export function memberOf(kind: WatchKind, name: string): string | null {
	if (kind === 'pods') return name;
	if (kind === 'persistentvolumeclaims') return memberOfPvc(name);
	if (kind === 'leases') return memberOfLease(name);
	return null;
}

/** The member kinds, whose objects are also kept by their pool label. */
type MemberKind = Exclude<WatchKind, 'configmaps'>;
const MEMBER_KINDS: readonly MemberKind[] = ['pods', 'persistentvolumeclaims', 'leases'];

/**
 * The watched objects, applied batch by batch. Objects of the member kinds are also kept by
 * pool label, so that one pool's objects (and the pools) cost that pool, not the namespace.
 */
export class ObjectIndex {
	private readonly byKind: Record<WatchKind, Map<string, KubeObject>> = {
		pods: new Map(),
		persistentvolumeclaims: new Map(),
		configmaps: new Map(),
		leases: new Map(),
	};
	/** The labelled objects of each member kind by pool, then name (no empty pool is kept). */
	private readonly byPool: Record<MemberKind, Map<string, Map<string, KubeObject>>> = {
		pods: new Map(),
		persistentvolumeclaims: new Map(),
		leases: new Map(),
	};

	/** Keeps an object (replacing its name's) in the kind's maps. */
	private put(kind: WatchKind, name: string, o: KubeObject): void {
		const map = this.byKind[kind];
		if (kind !== 'configmaps') {
			const pools = this.byPool[kind];
			const before = poolOf(map.get(name));
			const after = poolOf(o);
			if (before !== null && before !== after) this.unpool(kind, before, name);
			if (after !== null) {
				let bucket = pools.get(after);
				if (!bucket) {
					bucket = new Map();
					pools.set(after, bucket);
				}
				bucket.set(name, o);
			}
		}
		map.set(name, o);
	}

	/** Drops an object by name from the kind's maps. */
	private drop(kind: WatchKind, name: string): void {
		const map = this.byKind[kind];
		if (kind !== 'configmaps') {
			const before = poolOf(map.get(name));
			if (before !== null) this.unpool(kind, before, name);
		}
		map.delete(name);
	}

	private unpool(kind: MemberKind, pool: string, name: string): void {
		const bucket = this.byPool[kind].get(pool);
		if (!bucket) return;
		bucket.delete(name);
		if (bucket.size === 0) this.byPool[kind].delete(pool);
	}

	/**
	 * Applies a batch of watch changes (kept as consoleObject: no managedFields, every string
	 * cut to the console's bound) and tells which pools and members they touched.
	 */
	apply(changes: readonly WatchChange[]): DirtyPools {
		const dirty: DirtyPools = new Map();
		const touch = (pool: string | null, member: string | null | 'all') => {
			if (!pool) return;
			const had = dirty.get(pool);
			if (had === 'all') return;
			if (member === null) return;
			if (member === 'all') {
				dirty.set(pool, 'all');
				return;
			}
			if (had) had.add(member);
			else dirty.set(pool, new Set([member]));
		};
		const touchObject = (kind: WatchKind, o: KubeObject | undefined) => {
			if (!o) return;
			const name = o.metadata.name ?? '';
			if (kind === 'configmaps') {
				touch(poolOf(o) ?? poolOfConfigMap(name), 'all');
				return;
			}
			touch(poolOf(o), memberOf(kind, name));
		};
		for (const change of changes) {
			const map = this.byKind[change.kind];
			if (!map) continue;
			if (change.op === 'reset') {
				for (const old of map.values()) touchObject(change.kind, old);
				map.clear();
				if (change.kind !== 'configmaps') this.byPool[change.kind].clear();
				for (const raw of change.objects) {
					if (!raw.metadata.name) continue;
					const o = consoleObject(change.kind, raw);
					this.put(change.kind, raw.metadata.name, o);
					touchObject(change.kind, o);
				}
				continue;
			}
			const name = change.object.metadata.name;
			if (!name) continue;
			const object = consoleObject(change.kind, change.object);
			touchObject(change.kind, map.get(name));
			touchObject(change.kind, object);
			if (change.op === 'delete') this.drop(change.kind, name);
			else this.put(change.kind, name, object);
		}
		return dirty;
	}

	/** One object by kind and name. */
	get(kind: WatchKind, name: string): KubeObject | undefined {
		return this.byKind[kind].get(name);
	}

	/** How many objects of a kind are held. */
	count(kind: WatchKind): number {
		return this.byKind[kind].size;
	}

	/** The definition ConfigMap of a pool, or null. */
	configMap(pool: string): ConfigMapObject | null {
		const cm = this.byKind.configmaps.get(configMapName(pool));
		return cm ? (cm as ConfigMapObject) : null;
	}

	/** Every pool that has a definition or any object, sorted by name. */
	poolNames(): string[] {
		const names = new Set<string>();
		for (const cm of this.byKind.configmaps.values()) {
			const pool = poolOfConfigMap(cm.metadata.name ?? '');
			if (pool) names.add(pool);
		}
		for (const kind of MEMBER_KINDS)
			for (const pool of this.byPool[kind].keys()) if (pool) names.add(pool);
		return [...names].sort();
	}

	/** Every object labelled with the pool, by kind. */
	poolObjects(pool: string): PoolObjectSet {
		const of = <T>(kind: MemberKind): T[] => {
			const bucket = this.byPool[kind].get(pool);
			return bucket ? ([...bucket.values()] as T[]) : [];
		};
		return {
			configMap: this.configMap(pool),
			pods: of<PodObject>('pods'),
			pvcs: of<PvcObject>('persistentvolumeclaims'),
			leases: of<LeaseObject>('leases'),
		};
	}

	/** The objects named after one member, whatever their labels. */
	memberObjects(member: string): MemberObjectSet {
		return {
			pod: (this.byKind.pods.get(member) as PodObject | undefined) ?? null,
			pvc:
				(this.byKind.persistentvolumeclaims.get(pvcName(member)) as PvcObject | undefined) ?? null,
			lease: (this.byKind.leases.get(leaseName(member)) as LeaseObject | undefined) ?? null,
		};
	}
}
