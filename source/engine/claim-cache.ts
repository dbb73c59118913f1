/**
 * A watch-fed cache of one pool for the claims of a long-running engine (the console,
 * `reconcile --watch`, the controller, a broker embedding the engine): client-go's informer
 * pattern. The definition, the pool's pods and PVCs and every Lease of the namespace (as
 * listPoolObjects sees them) are listed once and kept current by watches, so that a claim
 * reads nothing before its Lease create.
 *
 * A claim on a cache that may be stale is safe: creating the member's Lease is the arbiter
 * (the first writer wins, a stale cache only costs a lost race), the PVC is written at the
 * resourceVersion the cache holds (a change since is read again and judged anew), and the
 * check for an earlier claim of the same identity waits until the Lease watch has delivered
 * the claim's own Lease: a watch delivers in resourceVersion order, so every Lease created
 * before it is in the cache then. While a watch is not synced, claims read the API.
 */

import type { KubeObject } from '../kube/objects.js';
import {
	type PoolWatchSink,
	WATCH_KINDS,
	type WatchChange,
	type WatchKind,
} from '../kube/pool-watch.js';
import { type ResilientWatch, startResilientWatch } from '../kube/resilient-watch.js';
import { configMapName, POOL_LABEL } from '../pool/names.js';
import { readObject } from '../pool/object-shape.js';
import type { ConfigMapObject, LeaseObject } from '../pool/objects.js';
import type { EngineContext } from './context.js';
import { poolSelector } from './pool-objects.js';

/** The kinds a claim cache keeps. */
type CachedKind = 'configmaps' | 'pods' | 'persistentvolumeclaims' | 'leases';

const WATCHED: ReadonlyArray<{
	kind: CachedKind;
	resource: string;
	apiVersion: string;
	selected: boolean;
}> = [
	{ kind: 'configmaps', resource: 'ConfigMap', apiVersion: 'v1', selected: true },
	{ kind: 'pods', resource: 'Pod', apiVersion: 'v1', selected: true },
	{
		kind: 'persistentvolumeclaims',
		resource: 'PersistentVolumeClaim',
		apiVersion: 'v1',
		selected: true,
	},
	// every Lease: one under a member's name without the pool's labels blocks that member
	{ kind: 'leases', resource: 'Lease', apiVersion: 'coordination.k8s.io/v1', selected: false },
];

/** How long a claim waits for the Lease watch to deliver its own Lease before it lists (ms). */
export const CACHE_CATCH_UP_MS = 2_000;

/** One pool's watch-fed objects. */
export interface ClaimCache {
	/** Whether every watch has listed and is watching (otherwise claims read the API). */
	synced(): boolean;
	/** Resolves once every kind has been listed (or at once when stopped). */
	readonly ready: Promise<void>;
	/** The pool's objects as the watches have them, raw (read at the boundary by the claim). */
	raw(): { pods: unknown[]; pvcs: unknown[]; leases: unknown[] };
	/** The Leases of the namespace whose label key has the value, raw. */
	leasesLabelled(key: string, value: string): unknown[];
	/** The definition's ConfigMap, null when there is none, or 'unreadable'. */
	configMap(): ConfigMapObject | null | 'unreadable';
	/**
	 * Resolves true once the Lease watch has delivered resourceVersion rv (or a later one),
	 * false after timeoutMs or when rv is not a number this cache can order.
	 */
	leasesReached(rv: string | undefined, timeoutMs?: number): Promise<boolean>;
	/**
	 * Shows a Lease this engine just wrote (a claim's create) before the watch delivers it:
	 * client-go's mutation cache. The watch's copy wins once it has reached its resourceVersion.
	 */
	noteWritten(lease: LeaseObject): void;
	/** Forgets a Lease noted by noteWritten that this engine deleted (the watch says so later). */
	noteDeleted(name: string): void;
	/** Ends the watches. */
	stop(): void;
}

/** An engine's claim caches, by namespace and pool (see EngineCaches). */
export type ClaimCaches = Map<string, ClaimCache>;

function revision(rv: unknown): bigint | null {
	return typeof rv === 'string' && /^\d{1,30}$/.test(rv) ? BigInt(rv) : null;
}

/** The largest resourceVersion among objects, or 0. */
function highest(objects: readonly KubeObject[]): bigint {
	let max = 0n;
	for (const o of objects) {
		const r = revision(o?.metadata?.resourceVersion);
		if (r !== null && r > max) max = r;
	}
	return max;
}

/** The key of a pool's claim cache in an engine. */
export function claimCacheKey(ctx: EngineContext, pool: string): string {
	return `${ctx.namespace}/${pool}`;
}

/**
 * What a long-running process that already watches a pool hands the engine's claims instead
 * of watches of their own (the console's store, say): the objects as its watches have them,
 * raw (the claim reads them at the boundary), and word of each Lease event.
 */
export interface ClaimFeed {
	/** Resolves once every kind has been listed. */
	readonly ready: Promise<void>;
	/** Whether every kind has been listed and is being watched now (otherwise claims read the API). */
	synced(): boolean;
	/**
	 * The pool's pods and PVCs (by its label), every Lease of the namespace (one under a
	 * member's name without the pool's labels blocks that member), and the definition's
	 * ConfigMap (`corral-vdi-ctpool-<pool>`) or null.
	 */
	objects(): { pods: unknown[]; pvcs: unknown[]; leases: unknown[]; configMap: unknown };
	/**
	 * Calls listener after each Lease event the feed applied, with the Leases it changed (all
	 * of them after a relist), in the order the watch delivered them; returns the unsubscribe.
	 */
	onLeases(listener: (changed: readonly unknown[]) => void): () => void;
	/** Ends the feed's own watches, if it has any (called by the cache's stop). */
	stop?(): void;
}

/**
 * The engine's claims of a pool answer from a feed from now on (one per engine and pool: a
 * second call returns the running cache); stop() takes it out of the engine. The way to give
 * the console's watch-fed store to the engine: `engine.claimFromFeed(pool, feed)`, then
 * `engine.claim(pool, identity)` as always.
 */
export function claimFromFeed(ctx: EngineContext, pool: string, feed: ClaimFeed): ClaimCache {
	const key = claimCacheKey(ctx, pool);
	const running = ctx.caches.claimCaches.get(key);
	if (running) return running;
	let leaseRevision = 0n;
	let waiters: Array<() => void> = [];
	const unsubscribe = feed.onLeases((changed) => {
		const r = highest(changed as readonly KubeObject[]);
		if (r > leaseRevision) leaseRevision = r;
		const woken = waiters;
		waiters = [];
		for (const wake of woken) wake();
	});
	// Leases this engine wrote that the feed has not delivered yet, by name.
	const written = new Map<string, { lease: LeaseObject; rv: bigint }>();
	const leases = (): KubeObject[] => {
		const out = new Map<string, KubeObject>();
		for (const l of feed.objects().leases as KubeObject[])
			out.set(String(l?.metadata?.name ?? ''), l);
		for (const [name, w] of written) {
			if (leaseRevision >= w.rv) written.delete(name);
			else out.set(name, w.lease as unknown as KubeObject);
		}
		return [...out.values()];
	};
	const cache: ClaimCache = {
		ready: feed.ready,
		synced: () => feed.synced(),
		raw: () => {
			const { pods, pvcs } = feed.objects();
			return { pods, pvcs, leases: leases() };
		},
		leasesLabelled: (label, value) => leases().filter((l) => l.metadata?.labels?.[label] === value),
		configMap() {
			const raw = feed.objects().configMap;
			if (raw === null || raw === undefined) return null;
			const read = readObject('configmaps', raw);
			return read.ok ? read.value : 'unreadable';
		},
		leasesReached(rv, timeoutMs = CACHE_CATCH_UP_MS) {
			const target = revision(rv);
			if (target === null) return Promise.resolve(false);
			return new Promise<boolean>((resolve) => {
				const timer = setTimeout(() => resolve(false), timeoutMs);
				const check = () => {
					if (leaseRevision < target) return void waiters.push(check);
					clearTimeout(timer);
					resolve(true);
				};
				check();
			});
		},
		noteWritten(lease) {
			const rv = revision(lease.metadata.resourceVersion);
			const name = lease.metadata.name;
			if (name && rv !== null && rv > leaseRevision) written.set(name, { lease, rv });
		},
		noteDeleted(name) {
			written.delete(name);
		},
		stop() {
			unsubscribe();
			feed.stop?.();
			if (ctx.caches.claimCaches.get(key) === cache) ctx.caches.claimCaches.delete(key);
		},
	};
	ctx.caches.claimCaches.set(key, cache);
	return cache;
}

/**
 * What both feeds keep: the objects by kind and name, which kinds have been listed, and who
 * listens for Lease changes; `part` is the side of ClaimFeed they share.
 */
function feedObjects(pool: string) {
	const byKind = new Map<CachedKind, Map<string, KubeObject>>(
		WATCHED.map((w) => [w.kind, new Map()]),
	);
	const listed = new Set<CachedKind>();
	const listeners = new Set<(changed: readonly unknown[]) => void>();
	let markReady: () => void = () => {};
	const ready = new Promise<void>((resolve) => {
		markReady = resolve;
	});
	const values = (kind: CachedKind) => [...byKind.get(kind)!.values()];
	const part: Pick<ClaimFeed, 'ready' | 'objects' | 'onLeases'> = {
		ready,
		objects: () => ({
			pods: values('pods'),
			pvcs: values('persistentvolumeclaims'),
			leases: values('leases'),
			configMap: byKind.get('configmaps')!.get(configMapName(pool)) ?? null,
		}),
		onLeases(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
	return {
		byKind,
		listed,
		part,
		/** Every kind has been listed: ready resolves (once). */
		listedAll: () => {
			if (listed.size === WATCHED.length) markReady();
		},
		markReady: () => markReady(),
		leasesMoved: (changed: readonly KubeObject[]) => {
			for (const l of [...listeners]) l(changed);
		},
	};
}

/**
 * A feed of a pool from watches of its own: the namespace's Leases, the pool's pods and PVCs
 * and its ConfigMaps (what watchPoolForClaims starts; a process may build on it).
 */
export function watchPoolFeed(ctx: EngineContext, pool: string): ClaimFeed {
	const { byKind, listed, part, listedAll, markReady, leasesMoved } = feedObjects(pool);
	const watches: ResilientWatch[] = [];
	for (const w of WATCHED) {
		const objects = byKind.get(w.kind)!;
		watches.push(
			startResilientWatch(
				ctx.kube,
				{ plural: w.kind, kind: w.resource, apiVersion: w.apiVersion, namespace: ctx.namespace },
				w.selected ? { labelSelector: poolSelector(pool) } : {},
				{
					onReset(all) {
						objects.clear();
						for (const o of all) objects.set(String(o.metadata?.name ?? ''), o);
						listed.add(w.kind);
						listedAll();
						if (w.kind === 'leases') leasesMoved(all);
					},
					onChange(op, o) {
						const name = String(o.metadata?.name ?? '');
						if (op === 'delete') objects.delete(name);
						else objects.set(name, o);
						if (w.kind === 'leases') leasesMoved([o]);
					},
					onState() {},
				},
			),
		);
	}
	return {
		...part,
		synced: () =>
			listed.size === WATCHED.length && watches.every((w) => w.state().phase === 'synced'),
		stop() {
			for (const w of watches) w.stop();
			markReady();
		},
	};
}

/**
 * Starts the claim cache of a pool in the context's namespace, from watches of its own (one
 * per engine and pool: a second call returns the running one); stop() ends it and takes it
 * out of the engine.
 */
export function watchPoolForClaims(ctx: EngineContext, pool: string): ClaimCache {
	const running = ctx.caches.claimCaches.get(claimCacheKey(ctx, pool));
	return running ?? claimFromFeed(ctx, pool, watchPoolFeed(ctx, pool));
}

/**
 * One pool's feed filled by the changes handed to apply (a pool watch's, for that pool);
 * synced while connected() and every kind has been listed.
 */
function changeFed(pool: string, connected: () => boolean) {
	const { byKind, listed, part, listedAll, leasesMoved } = feedObjects(pool);
	const apply = (changes: readonly WatchChange[]) => {
		const leases: KubeObject[] = [];
		for (const change of changes) {
			const objects = byKind.get(change.kind)!;
			if (change.op === 'reset') {
				objects.clear();
				for (const o of change.objects) objects.set(String(o?.metadata?.name ?? ''), o);
				listed.add(change.kind);
				if (change.kind === 'leases') leases.push(...change.objects);
			} else {
				const name = String(change.object?.metadata?.name ?? '');
				if (change.op === 'delete') objects.delete(name);
				else objects.set(name, change.object);
				if (change.kind === 'leases') leases.push(change.object);
			}
		}
		listedAll();
		if (leases.length > 0) leasesMoved(leases);
	};
	const feed: ClaimFeed = {
		...part,
		synced: () => connected() && listed.size === WATCH_KINDS.length,
	};
	return { pool, apply, feed };
}

/**
 * A feed filled by a pool watch's batches (kube/pool-watch.ts): tee the watch's sink into
 * `sink` and hand `feed` to claimFromFeed. Its Leases are those the watch selects (the
 * pool's): a stranger's Lease under a member's name is then met at the Lease create (a lost
 * race), never overwritten.
 */
export function poolWatchFeed(pool: string): { sink: PoolWatchSink; feed: ClaimFeed } {
	let connected = false;
	const { apply, feed } = changeFed(pool, () => connected);
	const sink: PoolWatchSink = {
		onBatch: apply,
		onConnection(overall) {
			connected = overall.phase === 'synced';
		},
	};
	return { sink, feed };
}

/**
 * The feeds of every pool a watch of many pools brings (the console's: its namespace, or
 * every namespace with -A): tee the watch's sink into `sink`; `feed(namespace, pool)` is that
 * pool's, filled from the watch's first list on (each object goes to the pool its label and
 * namespace name), to hand to claimFromFeed when the process first claims there.
 */
export function poolWatchFeeds(): {
	sink: PoolWatchSink;
	feed(namespace: string, pool: string): ClaimFeed;
} {
	let connected = false;
	const feeds = new Map<string, ReturnType<typeof changeFed>>();
	const listed = new Set<WatchKind>();
	const feedOf = (key: string, pool: string) => {
		let fed = feeds.get(key);
		if (!fed) {
			fed = changeFed(pool, () => connected);
			// the kinds listed before this pool was first seen had none of its objects
			fed.apply([...listed].map((kind) => ({ kind, op: 'reset', objects: [] })));
			feeds.set(key, fed);
		}
		return fed;
	};
	const keyOf = (o: KubeObject): [string, string] | null => {
		const pool = o?.metadata?.labels?.[POOL_LABEL];
		return typeof pool === 'string' && pool !== ''
			? [JSON.stringify([o?.metadata?.namespace ?? '', pool]), pool]
			: null;
	};
	const sink: PoolWatchSink = {
		onBatch(changes) {
			const byPool = new Map<string, { pool: string; changes: WatchChange[] }>();
			const add = (key: string, pool: string, change: WatchChange) => {
				const entry = byPool.get(key) ?? { pool, changes: [] };
				byPool.set(key, entry);
				entry.changes.push(change);
			};
			for (const change of changes) {
				if (change.op !== 'reset') {
					const k = keyOf(change.object);
					if (k) add(k[0], k[1], change);
					continue;
				}
				// a relist replaces every pool's objects of that kind, those of pools it no longer has too
				listed.add(change.kind);
				const groups = new Map<string, { pool: string; objects: KubeObject[] }>();
				for (const [key, fed] of feeds) groups.set(key, { pool: fed.pool, objects: [] });
				for (const o of change.objects) {
					const k = keyOf(o);
					if (!k) continue;
					const group = groups.get(k[0]) ?? { pool: k[1], objects: [] };
					groups.set(k[0], group);
					group.objects.push(o);
				}
				for (const [key, group] of groups)
					add(key, group.pool, { kind: change.kind, op: 'reset', objects: group.objects });
			}
			for (const [key, entry] of byPool) feedOf(key, entry.pool).apply(entry.changes);
		},
		onConnection(overall) {
			connected = overall.phase === 'synced';
		},
	};
	return {
		sink,
		feed: (namespace, pool) => feedOf(JSON.stringify([namespace, pool]), pool).feed,
	};
}
