/**
 * How the console names a pool: its name when it watches one namespace, `namespace/name` when
 * it watches every namespace (-A), where two namespaces may hold pools of the same name. A
 * pool name is a DNS label, so the first `/` always ends the namespace.
 */

import type { KubeObject } from '../../kube/objects.js';
import type { WatchChange, WatchKind } from '../../kube/pool-watch.js';
import { type DirtyPools, ObjectIndex } from './object-index.js';

/** The key of a pool: `namespace/pool` across namespaces, else the pool's name. */
export function poolKey(namespace: string | null, pool: string): string {
	return namespace === null ? pool : `${namespace}/${pool}`;
}

/** A pool key split: its namespace (null when the key has none) and the pool's name. */
export function splitPoolKey(key: string): { namespace: string | null; pool: string } {
	const at = key.indexOf('/');
	return at < 0
		? { namespace: null, pool: key }
		: { namespace: key.slice(0, at), pool: key.slice(at + 1) };
}

/** The namespace a pool key acts in: its own, else the console's. */
export function poolNamespace(key: string, fallback: string): string {
	return splitPoolKey(key).namespace ?? fallback;
}

/** The pool's name without its namespace. */
export function poolName(key: string): string {
	return splitPoolKey(key).pool;
}

/**
 * ` of team-b/desk` after a member's name when the pool key names its namespace (-A, where
 * two namespaces may each hold a pool of that name), else nothing.
 */
export function ofPool(pool: string): string {
	return splitPoolKey(pool).namespace === null ? '' : ` of ${pool}`;
}

const EMPTY = new ObjectIndex();

/**
 * The watched objects of one namespace (one index, keys are pool names) or of every namespace
 * (one index per namespace, keys are `namespace/pool`), applied batch by batch.
 */
export class PoolIndex {
	private readonly single: ObjectIndex | null;
	private readonly byNamespace = new Map<string, ObjectIndex>();
	/** The kinds a list (reset) of has been applied. */
	private readonly lists = new Set<WatchKind>();

	/** allNamespaces: objects of every namespace arrive, and keys carry the namespace. */
	constructor(readonly allNamespaces: boolean) {
		this.single = allNamespaces ? null : new ObjectIndex();
	}

	/** Applies a batch; tells which pools (by key) and members it touched. */
	apply(changes: readonly WatchChange[]): DirtyPools {
		for (const c of changes) if (c.op === 'reset') this.lists.add(c.kind);
		if (this.single) return this.single.apply(changes);
		const groups = new Map<string, WatchChange[]>();
		const group = (ns: string) => {
			let g = groups.get(ns);
			if (!g) {
				g = [];
				groups.set(ns, g);
			}
			return g;
		};
		const nsOf = (o: KubeObject) => o.metadata.namespace ?? '';
		for (const change of changes) {
			if (change.op !== 'reset') {
				group(nsOf(change.object)).push(change);
				continue;
			}
			// a relist of a kind replaces that kind in every namespace, those it no longer names too
			const split = new Map<string, KubeObject[]>();
			for (const ns of this.byNamespace.keys()) split.set(ns, []);
			for (const ns of groups.keys()) if (!split.has(ns)) split.set(ns, []);
			for (const o of change.objects) {
				const list = split.get(nsOf(o));
				if (list) list.push(o);
				else split.set(nsOf(o), [o]);
			}
			for (const [ns, objects] of split)
				group(ns).push({ kind: change.kind, op: 'reset', objects });
		}
		const dirty: DirtyPools = new Map();
		for (const [ns, batch] of groups) {
			let index = this.byNamespace.get(ns);
			if (!index) {
				index = new ObjectIndex();
				this.byNamespace.set(ns, index);
			}
			for (const [pool, members] of index.apply(batch)) dirty.set(poolKey(ns, pool), members);
		}
		return dirty;
	}

	/** Whether a list of the kind has been applied. */
	listed(kind: WatchKind): boolean {
		return this.lists.has(kind);
	}

	/** The index holding a pool's objects, and the pool's name in it. */
	resolve(key: string): { index: ObjectIndex; pool: string } {
		if (this.single) return { index: this.single, pool: key };
		const { namespace, pool } = splitPoolKey(key);
		return { index: this.byNamespace.get(namespace ?? '') ?? EMPTY, pool };
	}

	/** Every pool by key, sorted by namespace, then name. */
	poolKeys(): string[] {
		if (this.single) return this.single.poolNames();
		const out: string[] = [];
		for (const ns of [...this.byNamespace.keys()].sort())
			for (const pool of this.byNamespace.get(ns)?.poolNames() ?? []) out.push(poolKey(ns, pool));
		return out;
	}
}
