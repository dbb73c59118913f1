/**
 * The in-memory object store of the simulated cluster: one global revision counter, an
 * event history for watch replay compacted by time as etcd is (and bounded in size), and the API server's write semantics (conflicts,
 * no-op updates, preconditions, finalizers, graceful pod deletion).
 */

import { randomUUID } from 'node:crypto';
import { defaultAccessObject } from './access-objects.js';
import { applyDefaults } from './defaults.js';
import {
	alreadyExists,
	conflict,
	continueExpired,
	expired,
	forbiddenField,
	invalid,
	notFound,
	preconditionFailed,
	SimError,
} from './errors.js';
import { RESOURCES, resourceInfo } from './resources.js';
import type {
	DeleteOptions,
	ListOptions,
	ResourceName,
	SimEvent,
	SimObject,
	SimStore,
	WriteOptions,
} from './store-api.js';
import { validateObject } from './validate.js';

/** A stored object with its JSON, serialised once per write. Never mutate `obj`. */
export interface StoredEntry {
	readonly obj: SimObject;
	readonly json: string;
}

/** One change in the history, shared by every watcher. Never mutate its objects. */
export interface StoredEvent {
	readonly type: SimEvent['type'];
	readonly resource: ResourceName;
	readonly revision: number;
	readonly obj: SimObject;
	readonly json: string;
	/** For MODIFIED: the object before the change (filtered watches turn it into ADDED/DELETED). */
	readonly prev?: SimObject;
	/** Who made the write. */
	readonly who?: string;
}

/** A change as one filtered watcher sees it (type may differ from the stored event's). */
export interface WatchDelivery {
	type: SimEvent['type'];
	event: StoredEvent;
	/** The object to send: the event's object, or the previous one for a filtered-out MODIFIED. */
	obj: SimObject;
	/** JSON of `obj`. */
	json: string;
}

/** A write as the audit log records it. */
export interface StoreWrite {
	verb: 'create' | 'update' | 'delete';
	resource: ResourceName;
	namespace?: string;
	name: string;
	revision: number;
	who?: string;
}

/** Settings of a store. */
export interface StoreOptions {
	/** How many events the history keeps for watch replay at most (default 10,000). */
	historySize?: number;
	/**
	 * How long the history keeps an event (ms, default 5 minutes, as the API server compacts
	 * etcd): a watch from a resourceVersion older than that gets 410 Expired.
	 */
	compactionMs?: number;
	/** Grace period for a pod delete that names none and whose spec names none (default 30 s). */
	defaultGraceSeconds?: number;
	/** The clock (default: Date.now). */
	now?: () => number;
}

interface NsBucket {
	items: Map<string, StoredEntry>;
	sorted: string[] | null;
}

interface Watcher {
	resource: ResourceName;
	namespace: string | undefined;
	match: (obj: SimObject) => boolean;
	deliver: (d: WatchDelivery) => void;
}

const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

/** The kinds whose objects carry metadata.generation (their strategies set it). */
const GENERATION_KINDS = new Set(['pods', 'deployments']);

/**
 * Whether an update changes what generation counts: the spec, but for a pod not its
 * nodeName (a binding, which leaves the generation alone).
 */
function specChanged(resource: string, old: SimObject, next: SimObject): boolean {
	if (resource !== 'pods') return !jsonEqual(next.spec, old.spec);
	const { nodeName: _a, ...a } = (old.spec ?? {}) as Record<string, unknown>;
	const { nodeName: _b, ...b } = (next.spec ?? {}) as Record<string, unknown>;
	return !jsonEqual(a, b);
}

/** How long the history keeps an event by default: the API server compacts etcd every 5 minutes. */
export const DEFAULT_COMPACTION_MS = 5 * 60_000;

/** An ISO timestamp with second precision, as the API server writes metav1.Time. */
export function isoSeconds(ms: number): string {
	return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Deep structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
	if (Array.isArray(a)) {
		if (!Array.isArray(b) || a.length !== b.length) return false;
		for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
		return true;
	}
	if (Array.isArray(b)) return false;
	const ar = a as Record<string, unknown>;
	const br = b as Record<string, unknown>;
	const ak = Object.keys(ar).filter((k) => ar[k] !== undefined);
	const bk = Object.keys(br).filter((k) => br[k] !== undefined);
	if (ak.length !== bk.length) return false;
	for (const k of ak) if (!jsonEqual(ar[k], br[k])) return false;
	return true;
}

function cloneJson<T>(v: T): T {
	return JSON.parse(JSON.stringify(v)) as T;
}

function matcherOf(opts: ListOptions): (obj: SimObject) => boolean {
	const { namespace, labels, fields } = opts;
	return (obj) =>
		(namespace === undefined || obj.metadata.namespace === namespace) &&
		(!labels || labels(obj.metadata.labels ?? {})) &&
		(!fields || fields(obj));
}

function randomSuffix(): string {
	const chars = 'bcdfghjklmnpqrstvwxz2456789';
	let s = '';
	for (let i = 0; i < 5; i++) s += chars[Math.floor(Math.random() * chars.length)];
	return s;
}

/** Namespaces in the order of etcd's keys `<namespace>/<name>`. */
function byKeyPrefix(a: string, b: string): number {
	const ka = `${a}/`;
	const kb = `${b}/`;
	return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * The position of the first of a namespace's sorted names whose key `<ns>/<name>` sorts after
 * `after` (0 without one): a page of a long list starts where the one before ended, without
 * a pass over the names before it.
 */
function firstAfter(ns: string, names: readonly string[], after: string | undefined): number {
	if (after === undefined) return 0;
	const prefix = `${ns}/`;
	if (!after.startsWith(prefix)) return prefix > after ? 0 : names.length;
	const last = after.slice(prefix.length);
	let lo = 0;
	let hi = names.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (names[mid]! <= last) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/** The in-memory store: the single source of truth of the simulated cluster. */
export class Store implements SimStore {
	private rev = 0;
	private readonly data = new Map<ResourceName, Map<string, NsBucket>>();
	private readonly historySize: number;
	private readonly history: (StoredEvent | undefined)[];
	/** When each event of the history was written (ms, same ring positions). */
	private readonly historyAt: number[];
	private readonly compactionMs: number;
	private histStart = 0;
	private histCount = 0;
	private compacted = 0;
	private readonly watchers = new Set<Watcher>();
	private readonly changeListeners = new Set<(e: SimEvent) => void>();
	private readonly writeListeners = new Set<(w: StoreWrite) => void>();
	private readonly queue: StoredEvent[] = [];
	private dispatching = false;
	private nextIp = 10;
	/** Grace period for a pod delete that names none (s). */
	defaultGraceSeconds: number;
	private readonly now: () => number;

	constructor(opts: StoreOptions = {}) {
		this.historySize = Math.max(1, opts.historySize ?? 10_000);
		this.history = new Array(this.historySize);
		this.historyAt = new Array(this.historySize).fill(0);
		this.compactionMs = Math.max(0, opts.compactionMs ?? DEFAULT_COMPACTION_MS);
		this.defaultGraceSeconds = opts.defaultGraceSeconds ?? 30;
		this.now = opts.now ?? Date.now;
	}

	/** The current global revision. */
	revision(): number {
		return this.rev;
	}

	/** The newest revision the history no longer holds (0 while nothing was dropped). */
	compactedRevision(): number {
		this.compactOld();
		return this.compacted;
	}

	/** Drops the events older than the compaction window. */
	private compactOld(): void {
		const cutoff = this.now() - this.compactionMs;
		while (this.histCount > 0 && this.historyAt[this.histStart]! < cutoff) {
			this.compacted = this.history[this.histStart]!.revision;
			this.history[this.histStart] = undefined;
			this.histStart = (this.histStart + 1) % this.historySize;
			this.histCount--;
		}
	}

	// ---- reads -------------------------------------------------------------------------

	private bucket(resource: ResourceName, ns: string, create: boolean): NsBucket | undefined {
		let byNs = this.data.get(resource);
		if (!byNs) {
			if (!create) return undefined;
			byNs = new Map();
			this.data.set(resource, byNs);
		}
		let b = byNs.get(ns);
		if (!b && create) {
			b = { items: new Map(), sorted: [] };
			byNs.set(ns, b);
		}
		return b;
	}

	private nsKey(resource: ResourceName, namespace: string | undefined): string {
		return resourceInfo(resource).namespaced ? (namespace ?? '') : '';
	}

	/** The stored entry (shared, read-only), or undefined. */
	getEntry(
		resource: ResourceName,
		namespace: string | undefined,
		name: string,
	): StoredEntry | undefined {
		return this.bucket(resource, this.nsKey(resource, namespace), false)?.items.get(name);
	}

	/** Reads an object (a copy the caller may change), or undefined when absent. */
	get(resource: ResourceName, namespace: string | undefined, name: string): SimObject | undefined {
		const e = this.getEntry(resource, namespace, name);
		return e ? (JSON.parse(e.json) as SimObject) : undefined;
	}

	private sortedNames(b: NsBucket): string[] {
		if (!b.sorted) b.sorted = [...b.items.keys()].sort();
		return b.sorted;
	}

	/**
	 * The stored entries (shared, read-only) matching the options, sorted by namespace then
	 * name. With `after`, only entries whose key (`namespace/name`) sorts after it.
	 */
	listEntries(resource: ResourceName, opts: ListOptions = {}, after?: string): StoredEntry[] {
		const byNs = this.data.get(resource);
		if (!byNs) return [];
		const info = resourceInfo(resource);
		// etcd's order: by the key `<namespace>/<name>`, byte by byte (corral-b's objects come
		// before corral's: '-' sorts before '/')
		const nsList =
			info.namespaced && opts.namespace !== undefined
				? [opts.namespace]
				: [...byNs.keys()].sort(byKeyPrefix);
		const { labels, fields } = opts;
		const out: StoredEntry[] = [];
		for (const ns of nsList) {
			const b = byNs.get(ns);
			if (!b) continue;
			const names = this.sortedNames(b);
			for (let i = firstAfter(ns, names, after); i < names.length; i++) {
				const name = names[i]!;
				const e = b.items.get(name)!;
				if (labels && !labels(e.obj.metadata.labels ?? {})) continue;
				if (fields && !fields(e.obj)) continue;
				out.push(e);
			}
		}
		return out;
	}

	/** Lists objects (copies, sorted by namespace, then name). */
	list(resource: ResourceName, opts: ListOptions = {}): SimObject[] {
		return this.listEntries(resource, opts).map((e) => JSON.parse(e.json) as SimObject);
	}

	/** How many objects of a resource are stored (all namespaces). */
	count(resource: ResourceName): number {
		let n = 0;
		for (const b of this.data.get(resource)?.values() ?? []) n += b.items.size;
		return n;
	}

	/**
	 * The entries of a resource as they were at revision `at`, rebuilt from the history
	 * (for continue tokens); 410 when the history no longer reaches back that far.
	 */
	snapshotEntries(
		resource: ResourceName,
		at: number,
		opts: ListOptions = {},
		after?: string,
	): StoredEntry[] {
		if (at >= this.rev) return this.listEntries(resource, opts, after);
		this.compactOld();
		if (at < this.compacted) throw continueExpired();
		const events = this.eventsAfter(at).filter((e) => e.resource === resource);
		// nothing of this resource written since: it is as it was (the next page of a list
		// while other resources change, as etcd reads a page at its revision)
		if (events.length === 0) return this.listEntries(resource, opts, after);
		const keyOf = (o: SimObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
		const current = new Map<string, StoredEntry | null>();
		for (const e of this.listEntries(resource)) current.set(keyOf(e.obj), e);
		for (let i = events.length - 1; i >= 0; i--) {
			const ev = events[i]!;
			const key = keyOf(ev.obj);
			if (ev.type === 'ADDED') current.set(key, null);
			else {
				const prev = ev.prev ?? ev.obj;
				current.set(key, { obj: prev, json: JSON.stringify(prev) });
			}
		}
		const match = matcherOf(opts);
		return [...current.entries()]
			.filter(
				(kv): kv is [string, StoredEntry] =>
					kv[1] !== null && (after === undefined || kv[0] > after) && match(kv[1].obj),
			)
			.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
			.map((kv) => kv[1]);
	}

	// ---- writes ------------------------------------------------------------------------

	private defaultStorageClass(): string | undefined {
		for (const e of this.listEntries('storageclasses')) {
			const ann = e.obj.metadata.annotations ?? {};
			if (
				ann['storageclass.kubernetes.io/is-default-class'] === 'true' ||
				ann['storageclass.beta.kubernetes.io/is-default-class'] === 'true'
			)
				return e.obj.metadata.name;
		}
		return undefined;
	}

	private allocateClusterIP(dryRun = false): string {
		const n = dryRun ? this.nextIp : this.nextIp++;
		return `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
	}

	private checkNamespace(
		resource: ResourceName,
		namespace: string | undefined,
		name: string,
	): void {
		if (!resourceInfo(resource).namespaced || resource === 'namespaces') return;
		const ns = this.getEntry('namespaces', undefined, namespace ?? '');
		if (!ns) throw notFound('namespaces', namespace ?? '');
		if (ns.obj.metadata.deletionTimestamp) {
			throw new SimError(
				403,
				'Forbidden',
				`${resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
				{ name, kind: resource },
			);
		}
	}

	/** Creates an object; sets uid, creationTimestamp, resourceVersion, namespace. */
	create(resource: ResourceName, input: SimObject, opts: WriteOptions = {}): SimObject {
		const obj = cloneJson(input);
		const info = resourceInfo(resource);
		obj.metadata = obj.metadata ?? ({ name: '' } as SimObject['metadata']);
		const meta = obj.metadata;
		if (!meta.name && typeof meta.generateName === 'string' && meta.generateName) {
			meta.name = `${meta.generateName}${randomSuffix()}`;
		}
		if (!info.namespaced) delete meta.namespace;
		else if (!meta.namespace) meta.namespace = 'default';
		obj.apiVersion = obj.apiVersion || (info.group ? `${info.group}/${info.version}` : 'v1');
		obj.kind = obj.kind || info.kind;
		validateObject(resource, obj);
		this.checkNamespace(resource, meta.namespace, meta.name);
		const b = this.bucket(resource, meta.namespace ?? '', true)!;
		if (b.items.has(meta.name)) throw alreadyExists(resource, meta.name);
		applyDefaults(resource, obj, {
			defaultGraceSeconds: this.defaultGraceSeconds,
			defaultStorageClass: () => this.defaultStorageClass(),
			allocateClusterIP: () => this.allocateClusterIP(opts.dryRun),
		});
		if (resource === 'persistentvolumeclaims') {
			const fin = meta.finalizers ?? [];
			if (!fin.includes(PVC_PROTECTION)) meta.finalizers = [...fin, PVC_PROTECTION];
		}
		delete meta.deletionTimestamp;
		delete meta.deletionGracePeriodSeconds;
		meta.uid = randomUUID();
		meta.creationTimestamp = isoSeconds(this.now());
		if (GENERATION_KINDS.has(resource)) meta.generation = 1;
		else delete meta.generation;
		if (opts.dryRun) return obj;
		meta.resourceVersion = String(++this.rev);
		const entry: StoredEntry = { obj, json: JSON.stringify(obj) };
		b.items.set(meta.name, entry);
		b.sorted = null;
		this.emit({ type: 'ADDED', resource, revision: this.rev, ...entry, who: opts.who }, 'create');
		return JSON.parse(entry.json) as SimObject;
	}

	/**
	 * Replaces an object. With metadata.resourceVersion set, a stale one is 409 Conflict;
	 * without it the update is unconditional. A no-op update keeps the RV and emits nothing.
	 * Removing the last finalizer of an object with a deletionTimestamp deletes it.
	 */
	update(resource: ResourceName, input: SimObject, opts: WriteOptions = {}): SimObject {
		const name = input.metadata?.name ?? '';
		const ns = this.nsKey(resource, input.metadata?.namespace);
		const b = this.bucket(resource, ns, false);
		const cur = b?.items.get(name);
		if (!b || !cur) throw notFound(resource, name);
		const old = cur.obj;
		const obj = cloneJson(input);
		const meta = obj.metadata;
		if (meta.resourceVersion && meta.resourceVersion !== old.metadata.resourceVersion) {
			throw conflict(resource, name);
		}
		if (meta.uid && meta.uid !== old.metadata.uid) {
			throw conflict(
				resource,
				name,
				`Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.metadata.uid}`,
			);
		}
		const info = resourceInfo(resource);
		obj.apiVersion = old.apiVersion;
		obj.kind = old.kind;
		if (info.namespaced) meta.namespace = old.metadata.namespace;
		else delete meta.namespace;
		meta.uid = old.metadata.uid;
		meta.creationTimestamp = old.metadata.creationTimestamp;
		meta.resourceVersion = old.metadata.resourceVersion;
		if (meta.generateName === undefined && old.metadata.generateName !== undefined) {
			meta.generateName = old.metadata.generateName;
		}
		for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
			if (old.metadata[k] === undefined) delete meta[k];
			else (meta as Record<string, unknown>)[k] = old.metadata[k];
		}
		if (old.metadata.generation !== undefined) meta.generation = old.metadata.generation;
		else delete meta.generation;
		if (!meta.finalizers || meta.finalizers.length === 0) delete meta.finalizers;
		defaultAccessObject(resource, obj);
		validateObject(resource, obj);
		if (old.metadata.deletionTimestamp) {
			const before = new Set(old.metadata.finalizers ?? []);
			const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
			if (added.length > 0) {
				throw invalid(resource, name, [
					forbiddenField(
						'metadata.finalizers',
						`no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
					),
				]);
			}
		}
		if (jsonEqual(obj, old)) return JSON.parse(cur.json) as SimObject;
		if (meta.generation !== undefined && specChanged(resource, old, obj)) meta.generation += 1;
		if (opts.dryRun) return obj;
		const finishing =
			old.metadata.deletionTimestamp !== undefined &&
			(meta.finalizers ?? []).length === 0 &&
			(meta.deletionGracePeriodSeconds ?? 0) === 0;
		meta.resourceVersion = String(++this.rev);
		const entry: StoredEntry = { obj, json: JSON.stringify(obj) };
		if (finishing) {
			this.remove(resource, b, entry, opts.who);
			return JSON.parse(entry.json) as SimObject;
		}
		b.items.set(name, entry);
		this.emit(
			{ type: 'MODIFIED', resource, revision: this.rev, ...entry, prev: old, who: opts.who },
			'update',
		);
		return JSON.parse(entry.json) as SimObject;
	}

	private remove(resource: ResourceName, b: NsBucket, entry: StoredEntry, who?: string): void {
		b.items.delete(entry.obj.metadata.name);
		b.sorted = null;
		this.emit({ type: 'DELETED', resource, revision: this.rev, ...entry, who }, 'delete');
		const ns = entry.obj.metadata.namespace;
		if (ns && resource !== 'namespaces') this.maybeFinishNamespace(ns);
	}

	/**
	 * Deletes an object: with finalizers, or a pod on a node with grace > 0, it only sets
	 * deletionTimestamp (MODIFIED); otherwise it is removed (DELETED). Returns the object as
	 * last stored.
	 */
	delete(
		resource: ResourceName,
		namespace: string | undefined,
		name: string,
		opts: DeleteOptions = {},
	): SimObject {
		const b = this.bucket(resource, this.nsKey(resource, namespace), false);
		const cur = b?.items.get(name);
		if (!b || !cur) throw notFound(resource, name);
		const old = cur.obj;
		const pre = opts.preconditions;
		if (pre?.uid && pre.uid !== old.metadata.uid) {
			throw preconditionFailed(
				resource,
				name,
				`the UID in the precondition (${pre.uid}) does not match the UID in record (${old.metadata.uid}). The object might have been deleted and then recreated`,
			);
		}
		if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
			throw preconditionFailed(
				resource,
				name,
				`the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion}). The object might have been modified`,
			);
		}
		if (resource === 'namespaces') return this.deleteNamespace(name, opts);
		const grace = this.graceFor(resource, old, opts.gracePeriodSeconds);
		const finalizers = old.metadata.finalizers ?? [];
		const deleting = old.metadata.deletionTimestamp !== undefined;
		const now = this.now();
		if (deleting) {
			const curGrace = old.metadata.deletionGracePeriodSeconds ?? 0;
			if (grace >= curGrace) return JSON.parse(cur.json) as SimObject;
			// A shorter grace period wins.
			if (grace === 0 && finalizers.length === 0) {
				return this.removeNow(resource, b, old, opts.who, opts.dryRun);
			}
			return this.markDeleting(resource, b, old, now, grace, opts.who, opts.dryRun);
		}
		if (finalizers.length > 0 || grace > 0) {
			return this.markDeleting(resource, b, old, now, grace, opts.who, opts.dryRun);
		}
		return this.removeNow(resource, b, old, opts.who, opts.dryRun);
	}

	private graceFor(resource: ResourceName, obj: SimObject, requested: number | undefined): number {
		if (resource !== 'pods') return 0;
		const spec = (obj.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
		const phase = (obj.status as { phase?: string } | undefined)?.phase;
		if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
		let g = requested ?? spec.terminationGracePeriodSeconds ?? this.defaultGraceSeconds;
		if (!Number.isFinite(g) || g < 0) g = 1;
		return Math.floor(g);
	}

	private markDeleting(
		resource: ResourceName,
		b: NsBucket,
		old: SimObject,
		now: number,
		grace: number,
		who?: string,
		dryRun = false,
	): SimObject {
		const obj = cloneJson(old);
		obj.metadata.deletionTimestamp = isoSeconds(now + grace * 1000);
		obj.metadata.deletionGracePeriodSeconds = grace;
		if (obj.metadata.generation !== undefined) obj.metadata.generation += 1;
		if (dryRun) return obj;
		obj.metadata.resourceVersion = String(++this.rev);
		const entry: StoredEntry = { obj, json: JSON.stringify(obj) };
		b.items.set(obj.metadata.name, entry);
		this.emit(
			{ type: 'MODIFIED', resource, revision: this.rev, ...entry, prev: old, who },
			'delete',
		);
		return JSON.parse(entry.json) as SimObject;
	}

	private removeNow(
		resource: ResourceName,
		b: NsBucket,
		old: SimObject,
		who?: string,
		dryRun = false,
	): SimObject {
		const obj = cloneJson(old);
		if (dryRun) return obj;
		obj.metadata.resourceVersion = String(++this.rev);
		const entry: StoredEntry = { obj, json: JSON.stringify(obj) };
		this.remove(resource, b, entry, who);
		return JSON.parse(entry.json) as SimObject;
	}

	/**
	 * Namespaces: a delete marks the namespace Terminating, deletes everything in it, and
	 * removes the namespace once it is empty.
	 */
	private deleteNamespaceContents(ns: string, who?: string): void {
		for (const resource of [...this.data.keys()]) {
			if (!resourceInfo(resource).namespaced) continue;
			for (const e of this.listEntries(resource, { namespace: ns })) {
				try {
					this.delete(resource, ns, e.obj.metadata.name, { who });
				} catch {
					// already gone
				}
			}
		}
	}

	private namespaceEmpty(ns: string): boolean {
		for (const [resource, byNs] of this.data) {
			if (!resourceInfo(resource).namespaced) continue;
			if ((byNs.get(ns)?.items.size ?? 0) > 0) return false;
		}
		return true;
	}

	private maybeFinishNamespace(ns: string): void {
		const e = this.getEntry('namespaces', undefined, ns);
		if (!e?.obj.metadata.deletionTimestamp || !this.namespaceEmpty(ns)) return;
		const b = this.bucket('namespaces', '', false)!;
		const obj = cloneJson(e.obj);
		obj.metadata.resourceVersion = String(++this.rev);
		this.remove('namespaces', b, { obj, json: JSON.stringify(obj) });
	}

	/** Deletes a namespace the way the namespace controller does (contents first). */
	deleteNamespace(name: string, opts: WriteOptions = {}): SimObject {
		const e = this.getEntry('namespaces', undefined, name);
		if (!e) throw notFound('namespaces', name);
		if (opts.dryRun) {
			const obj = cloneJson(e.obj);
			if (!obj.metadata.deletionTimestamp) {
				obj.metadata.deletionTimestamp = isoSeconds(this.now());
				obj.metadata.deletionGracePeriodSeconds = 0;
				(obj.status as Record<string, unknown>) = { ...(obj.status ?? {}), phase: 'Terminating' };
			}
			return obj;
		}
		if (!e.obj.metadata.deletionTimestamp) {
			const obj = cloneJson(e.obj);
			obj.metadata.deletionTimestamp = isoSeconds(this.now());
			obj.metadata.deletionGracePeriodSeconds = 0;
			(obj.status as Record<string, unknown>) = { ...(obj.status ?? {}), phase: 'Terminating' };
			obj.metadata.resourceVersion = String(++this.rev);
			const entry = { obj, json: JSON.stringify(obj) };
			this.bucket('namespaces', '', false)!.items.set(name, entry);
			this.emit(
				{
					type: 'MODIFIED',
					resource: 'namespaces',
					revision: this.rev,
					...entry,
					prev: e.obj,
					who: opts.who,
				},
				'delete',
			);
			this.deleteNamespaceContents(name, opts.who);
			this.maybeFinishNamespace(name);
		}
		return this.get('namespaces', undefined, name) ?? cloneJson(e.obj);
	}

	// ---- events and watches ------------------------------------------------------------

	private emit(ev: StoredEvent, verb: StoreWrite['verb']): void {
		this.record(ev);
		for (const l of this.writeListeners) {
			try {
				l({
					verb,
					resource: ev.resource,
					namespace: ev.obj.metadata.namespace,
					name: ev.obj.metadata.name,
					revision: ev.revision,
					who: ev.who,
				});
			} catch {
				// a listener's failure is not the writer's
			}
		}
		this.queue.push(ev);
		if (this.dispatching) return;
		this.dispatching = true;
		try {
			while (this.queue.length > 0) {
				const next = this.queue.shift()!;
				this.dispatch(next);
			}
		} finally {
			this.dispatching = false;
		}
	}

	private record(ev: StoredEvent): void {
		const at = this.now();
		if (this.histCount < this.historySize) {
			const i = (this.histStart + this.histCount) % this.historySize;
			this.history[i] = ev;
			this.historyAt[i] = at;
			this.histCount++;
		} else {
			const dropped = this.history[this.histStart]!;
			this.compacted = dropped.revision;
			this.history[this.histStart] = ev;
			this.historyAt[this.histStart] = at;
			this.histStart = (this.histStart + 1) % this.historySize;
		}
		this.compactOld();
	}

	/** The history's events with a revision greater than `rev`, oldest first. */
	eventsAfter(rev: number): StoredEvent[] {
		// binary search over the ring buffer (revisions increase)
		let lo = 0;
		let hi = this.histCount;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			const ev = this.history[(this.histStart + mid) % this.historySize]!;
			if (ev.revision <= rev) lo = mid + 1;
			else hi = mid;
		}
		const out: StoredEvent[] = [];
		for (let i = lo; i < this.histCount; i++) {
			out.push(this.history[(this.histStart + i) % this.historySize]!);
		}
		return out;
	}

	private dispatch(ev: StoredEvent): void {
		for (const w of this.watchers) {
			if (w.resource !== ev.resource) continue;
			const d = this.filterFor(w, ev);
			if (!d) continue;
			try {
				w.deliver(d);
			} catch (err) {
				process.emitWarning(`sim store: watcher failed: ${String(err)}`);
			}
		}
		if (this.changeListeners.size > 0) {
			for (const l of this.changeListeners) {
				try {
					l({
						type: ev.type,
						resource: ev.resource,
						object: JSON.parse(ev.json) as SimObject,
						revision: ev.revision,
					});
				} catch (err) {
					process.emitWarning(`sim store: change listener failed: ${String(err)}`);
				}
			}
		}
	}

	private filterFor(w: Watcher, ev: StoredEvent): WatchDelivery | undefined {
		if (w.namespace !== undefined && ev.obj.metadata.namespace !== w.namespace) return undefined;
		const now = w.match(ev.obj);
		if (ev.type !== 'MODIFIED' || !ev.prev) {
			return now ? { type: ev.type, event: ev, obj: ev.obj, json: ev.json } : undefined;
		}
		const before = w.match(ev.prev);
		if (now && before) return { type: 'MODIFIED', event: ev, obj: ev.obj, json: ev.json };
		if (now) return { type: 'ADDED', event: ev, obj: ev.obj, json: ev.json };
		if (before) {
			const gone = cloneJson(ev.prev);
			gone.metadata.resourceVersion = String(ev.revision);
			return { type: 'DELETED', event: ev, obj: gone, json: JSON.stringify(gone) };
		}
		return undefined;
	}

	/**
	 * Subscribes to a resource's changes with shared, read-only objects (for the HTTP
	 * layer). fromRevision: replay every change after it from the history first, or throw
	 * 410 when the history no longer reaches back that far.
	 */
	watchEntries(
		resource: ResourceName,
		opts: ListOptions & { fromRevision?: number },
		deliver: (d: WatchDelivery) => void,
	): () => void {
		const w: Watcher = {
			resource,
			namespace: resourceInfo(resource).namespaced ? opts.namespace : undefined,
			match: matcherOf({ labels: opts.labels, fields: opts.fields }),
			deliver,
		};
		if (opts.fromRevision !== undefined) {
			this.compactOld();
			if (opts.fromRevision < this.compacted) throw expired(opts.fromRevision, this.compacted + 1);
			for (const ev of this.eventsAfter(opts.fromRevision)) {
				if (ev.resource !== resource) continue;
				const d = this.filterFor(w, ev);
				if (d) deliver(d);
			}
		}
		this.watchers.add(w);
		return () => {
			this.watchers.delete(w);
		};
	}

	/**
	 * Subscribes to changes. fromRevision undefined: only changes from now on; a number:
	 * every change after that revision (replayed from history), or a 410 SimApiError thrown
	 * synchronously when the history no longer reaches back that far. Returns unsubscribe.
	 */
	watch(
		resource: ResourceName,
		opts: ListOptions & { fromRevision?: number },
		onEvent: (e: SimEvent) => void,
	): () => void {
		return this.watchEntries(resource, opts, (d) =>
			onEvent({
				type: d.type,
				resource,
				object: JSON.parse(d.json) as SimObject,
				revision: d.event.revision,
			}),
		);
	}

	/** Subscribes to every change of every resource (for controllers). Returns unsubscribe. */
	onChange(listener: (e: SimEvent) => void): () => void {
		this.changeListeners.add(listener);
		return () => {
			this.changeListeners.delete(listener);
		};
	}

	/** Subscribes to every write as it happens (for the audit log). Returns unsubscribe. */
	onWrite(listener: (w: StoreWrite) => void): () => void {
		this.writeListeners.add(listener);
		return () => {
			this.writeListeners.delete(listener);
		};
	}

	/** How many HTTP-layer and store watchers are subscribed. */
	watcherCount(): number {
		return this.watchers.size;
	}

	/** The resources the store holds objects of, plus every known one. */
	resources(): string[] {
		return [...new Set([...RESOURCES.keys(), ...this.data.keys()])];
	}
}
