/**
 * What the pool watch has shown of every pool: each definition's spec text (the version a
 * terminal error waits on), and each pool's pods, PVCs and Leases, from which its figures
 * (members per state, claimed, claimable, exhausted) are worked out as they are now.
 */

import type { KubeObject } from '../kube/objects.js';
import type { WatchChange, WatchKind } from '../kube/pool-watch.js';
import { readBatch } from '../kube/watch-boundary.js';
import { groupMembers, type MemberView, memberView } from '../pool/member-state.js';
import { POOL_LABEL, poolOfConfigMap, SPEC_KEY } from '../pool/names.js';
import type { LeaseObject, PodObject, PvcObject } from '../pool/objects.js';
import { type RolloutProgress, rolloutProgress } from '../pool/rollout.js';
import { sourceHash } from '../pool/source-hash.js';
import { parseSpec, sourceFields } from '../pool/spec.js';
import { countMembers, type PoolCounts } from '../pool/status.js';

/** The key of a pool in the controller: `namespace/pool`. */
export function poolKey(namespace: string, pool: string): string {
	return `${namespace}/${pool}`;
}

/** The namespace and pool of a key. */
export function splitPoolKey(key: string): { namespace: string; pool: string } {
	const at = key.indexOf('/');
	return { namespace: key.slice(0, at), pool: key.slice(at + 1) };
}

/** A pool's figures as the watch shows them now. */
export interface PoolFigures {
	/** The definition's counts; null when the definition is unreadable. */
	counts: PoolCounts | null;
	/** Member views, in index order. */
	views: MemberView[];
	/** The rollout's progress while one runs, else null. */
	rollout: RolloutProgress | null;
}

/** What a batch of watch changes meant for the pools. */
export interface CacheDelta {
	/** Pools whose definition appeared. */
	added: string[];
	/** Pools whose definition went away. */
	removed: string[];
	/** Pools that something relevant happened to (a spec change, a member object's change). */
	touched: string[];
}

interface PoolObjects {
	spec: string | undefined;
	defined: boolean;
	pods: Map<string, PodObject>;
	pvcs: Map<string, PvcObject>;
	leases: Map<string, LeaseObject>;
}

/** An object's id in the cache: kind, namespace and name. */
function objectId(kind: WatchKind, o: { metadata: { namespace?: string; name?: string } }): string {
	return `${kind}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name ?? ''}`;
}

const MEMBER_KINDS = { pods: 'pods', persistentvolumeclaims: 'pvcs', leases: 'leases' } as const;

/** The watched objects of every pool, grouped by pool key. */
export class PoolCache {
	private readonly pools = new Map<string, PoolObjects>();
	/** Which pool each object was filed under, by kind, namespace and name. */
	private readonly filed = new Map<string, string>();

	/** The objects that do not read (kube/watch-boundary.ts), by kind, namespace and name. */
	private readonly unreadable = new Map<
		string,
		{ kind: WatchKind; key: string; problem: string }
	>();

	/**
	 * Applies a batch of watch changes; says which pools came, went, or changed. An object that
	 * does not read is left out (as if deleted) and its problem kept for its pool (problems);
	 * the rest of the batch is applied.
	 */
	apply(batch: readonly WatchChange[]): CacheDelta {
		const added = new Set<string>();
		const removed = new Set<string>();
		const touched = new Set<string>();
		const { changes, problems } = readBatch(batch);
		for (const ch of changes) {
			if (ch.op === 'reset') {
				for (const [id, u] of this.unreadable) if (u.kind === ch.kind) this.unreadable.delete(id);
			} else this.unreadable.delete(objectId(ch.kind, ch.object));
		}
		for (const p of problems) {
			const key = p.pool ? poolKey(p.namespace, p.pool) : '';
			this.unreadable.set(objectId(p.kind, { metadata: p }), {
				kind: p.kind,
				key,
				problem: p.problem,
			});
			if (key) touched.add(key);
		}
		for (const ch of changes) {
			if (ch.op === 'reset') this.reset(ch.kind, ch.objects, added, removed, touched);
			else if (ch.op === 'upsert') this.upsert(ch.kind, ch.object, added, touched);
			else this.remove(ch.kind, ch.object, removed, touched);
		}
		for (const k of added) removed.delete(k);
		return { added: [...added], removed: [...removed], touched: [...touched] };
	}

	/** The keys of the pools whose definition exists. */
	keys(): string[] {
		return [...this.pools.entries()].filter(([, p]) => p.defined).map(([k]) => k);
	}

	/** The problems of the pool's objects that do not read (its own label names the pool). */
	problems(key: string): string[] {
		const out: string[] = [];
		for (const u of this.unreadable.values()) if (u.key === key) out.push(u.problem);
		return out.sort();
	}

	/** Whether the pool's definition exists. */
	defined(key: string): boolean {
		return this.pools.get(key)?.defined ?? false;
	}

	/** The definition's spec text as last seen (undefined: no definition seen). */
	version(key: string): string | undefined {
		const p = this.pools.get(key);
		return p?.defined ? (p.spec ?? '') : undefined;
	}

	/** The pool's figures now (null when its definition does not exist). */
	figures(key: string, now: number): PoolFigures | null {
		const p = this.pools.get(key);
		if (!p?.defined) return null;
		const { pool } = splitPoolKey(key);
		let spec: ReturnType<typeof parseSpec>;
		try {
			spec = parseSpec(p.spec, pool, { allowPersistent: true });
		} catch {
			return { counts: null, views: [], rollout: null };
		}
		const poolInputs = {
			size: spec.size,
			sourceHash: sourceHash(sourceFields(spec)),
			waves: spec.maxUnavailable !== undefined,
		};
		const members = groupMembers(pool, spec.size, {
			pods: p.pods.values(),
			pvcs: p.pvcs.values(),
			leases: p.leases.values(),
		});
		const views = members.map((m) => memberView(m, poolInputs, now));
		return {
			counts: countMembers(spec.size, views),
			views,
			rollout: rolloutProgress(views, poolInputs.sourceHash, spec.image),
		};
	}

	private entry(key: string): PoolObjects {
		let p = this.pools.get(key);
		if (!p) {
			p = { spec: undefined, defined: false, pods: new Map(), pvcs: new Map(), leases: new Map() };
			this.pools.set(key, p);
		}
		return p;
	}

	/** The pool key an object belongs to, or null (no pool label, or a ConfigMap of another name). */
	private keyOf(kind: WatchKind, o: KubeObject): string | null {
		const ns = o.metadata.namespace ?? '';
		const label = o.metadata.labels?.[POOL_LABEL];
		if (kind === 'configmaps') {
			const pool = poolOfConfigMap(o.metadata.name ?? '');
			return pool && label === pool ? poolKey(ns, pool) : null;
		}
		return label ? poolKey(ns, label) : null;
	}

	private upsert(kind: WatchKind, o: KubeObject, added: Set<string>, touched: Set<string>): void {
		const id = `${kind}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name ?? ''}`;
		const key = this.keyOf(kind, o);
		const before = this.filed.get(id);
		if (before !== undefined && before !== key) this.drop(kind, before, o, touched);
		if (key === null) {
			this.filed.delete(id);
			return;
		}
		this.filed.set(id, key);
		const p = this.entry(key);
		if (kind === 'configmaps') {
			const spec = (o as { data?: Record<string, string> }).data?.[SPEC_KEY];
			if (!p.defined) added.add(key);
			// only a change of the spec counts: a status write is every reconcile's own echo
			if (!p.defined || p.spec !== spec) touched.add(key);
			p.defined = true;
			p.spec = spec;
			return;
		}
		p[MEMBER_KINDS[kind]].set(o.metadata.name ?? '', o as never);
		touched.add(key);
	}

	private remove(kind: WatchKind, o: KubeObject, removed: Set<string>, touched: Set<string>): void {
		const id = `${kind}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name ?? ''}`;
		const key = this.filed.get(id) ?? this.keyOf(kind, o);
		this.filed.delete(id);
		if (key === null) return;
		if (kind === 'configmaps' && this.pools.get(key)?.defined) removed.add(key);
		this.drop(kind, key, o, touched);
	}

	private drop(kind: WatchKind, key: string, o: KubeObject, touched: Set<string>): void {
		const p = this.pools.get(key);
		if (!p) return;
		if (kind === 'configmaps') {
			p.defined = false;
			p.spec = undefined;
		} else p[MEMBER_KINDS[kind]].delete(o.metadata.name ?? '');
		touched.add(key);
		if (!p.defined && p.pods.size + p.pvcs.size + p.leases.size === 0) this.pools.delete(key);
	}

	private reset(
		kind: WatchKind,
		objects: readonly KubeObject[],
		added: Set<string>,
		removed: Set<string>,
		touched: Set<string>,
	): void {
		const seen = new Set<string>();
		for (const o of objects) {
			seen.add(`${kind}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name ?? ''}`);
			this.upsert(kind, o, added, touched);
		}
		for (const id of [...this.filed.keys()]) {
			if (!id.startsWith(`${kind}\u0000`) || seen.has(id)) continue;
			const [, namespace, name] = id.split('\u0000');
			this.remove(kind, { metadata: { name, namespace } } as KubeObject, removed, touched);
		}
	}
}
