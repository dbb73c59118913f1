/**
 * The live view of pools: a resilient list + watch of pods, PVCs, ConfigMaps and Leases
 * carrying the pool label, with changes batched for the store and one connection state.
 */
import type { Kube } from './config.js';
import { type ConnectionState, worstState } from './connection-state.js';
import type { KubeObject } from './objects.js';
import {
	type ResilientWatch,
	startResilientWatch,
	type WatchedResource,
} from './resilient-watch.js';

export type { ConnectionState } from './connection-state.js';

/** The kinds a pool watch follows, by their plural resource names. */
export type WatchKind = 'pods' | 'persistentvolumeclaims' | 'configmaps' | 'leases';

/** Every watch kind, in the order they are started. */
export const WATCH_KINDS: readonly WatchKind[] = [
	'configmaps',
	'persistentvolumeclaims',
	'pods',
	'leases',
];

/** One change handed to the sink. */
export type WatchChange =
	/** A full relist of that kind: replace everything of that kind. */
	| { kind: WatchKind; op: 'reset'; objects: KubeObject[] }
	| { kind: WatchKind; op: 'upsert'; object: KubeObject }
	| { kind: WatchKind; op: 'delete'; object: KubeObject };

/** What to watch and how. */
export interface PoolWatchOptions {
	namespace: string;
	/** One pool; absent = every pool in the namespace. */
	pool?: string;
	kinds?: WatchKind[];
	/**
	 * The shortest time between two batches (ms, default 50): a change after a quiet spell is
	 * delivered at once; changes within batchMs of the last batch are gathered into the next.
	 */
	batchMs?: number;
	/** Server-side watch timeout (s, default about 240, spread a little per watch). */
	timeoutSeconds?: number;
	/** Restart a stream silent this long (ms, default 120 000). */
	silenceMs?: number;
	/** Retry delays (ms, default 500 doubling to 30 000, jittered). */
	backoffMs?: { initial: number; max: number };
}

/**
 * Where a pool watch delivers. Calls never overlap and never come after stop(). A sink that
 * throws is a bug: its error is rethrown outside the watch (uncaught), and the watch goes on.
 */
export interface PoolWatchSink {
	/** A batch of changes, in order; objects are plain JSON and must not be mutated. */
	onBatch(changes: WatchChange[]): void;
	/** The overall state (the worst kind) and each kind's, whenever one changes. */
	onConnection(overall: ConnectionState, byKind: Record<WatchKind, ConnectionState>): void;
}

/** A running pool watch. */
export interface PoolWatch {
	/** Stops every watch and timer; the sink hears nothing more. */
	stop(): void;
	/** The overall connection state now. */
	connection(): ConnectionState;
}

/** The pool label. */
export const POOL_LABEL = 'corral.dev/vdi-ct-pool';

const RESOURCES: Record<WatchKind, { kind: string; apiVersion: string }> = {
	pods: { kind: 'Pod', apiVersion: 'v1' },
	persistentvolumeclaims: { kind: 'PersistentVolumeClaim', apiVersion: 'v1' },
	configmaps: { kind: 'ConfigMap', apiVersion: 'v1' },
	leases: { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1' },
};

/** The label selector of one pool's objects, or of every pool's. */
export function poolSelector(pool?: string): string {
	return pool ? `${POOL_LABEL}=${pool}` : POOL_LABEL;
}

/** Rethrows a sink's error outside the watch loop, so a bug is loud but the watch lives on. */
function deliver(fn: () => void): void {
	try {
		fn();
	} catch (err) {
		setImmediate(() => {
			throw err;
		});
	}
}

/**
 * Starts watching the pool objects (label `corral.dev/vdi-ct-pool`, `=pool` when given) of
 * each kind in the namespace. Changes reach the sink batched; a relist arrives as a reset of
 * that kind; the connection state is the worst of the kinds. Runs until stop().
 */
export function startPoolWatch(kube: Kube, opts: PoolWatchOptions, sink: PoolWatchSink): PoolWatch {
	const kinds = opts.kinds ?? [...WATCH_KINDS];
	const batchMs = opts.batchMs ?? 50;
	const labelSelector = poolSelector(opts.pool);
	const started = Date.now();

	let stopped = false;
	let pending: WatchChange[] = [];
	/** Index in pending of the last upsert/delete per kind and object, to coalesce repeats. */
	let slots = new Map<string, number>();
	let batchTimer: ReturnType<typeof setTimeout> | undefined;
	/** When the last batch was delivered (leading edge: a change after a quiet spell goes at once). */
	let lastFlush = Number.NEGATIVE_INFINITY;
	/** A flush on the next turn of the event loop, for changes after a quiet spell. */
	let immediate: ReturnType<typeof setImmediate> | undefined;

	const byKind = {} as Record<WatchKind, ConnectionState>;
	for (const k of WATCH_KINDS) byKind[k] = { phase: 'synced', since: started };
	for (const k of kinds) byKind[k] = { phase: 'connecting', since: started };
	let overall = worstState(kinds.map((k) => byKind[k]));

	const flush = () => {
		if (batchTimer) clearTimeout(batchTimer);
		batchTimer = undefined;
		if (immediate) clearImmediate(immediate);
		immediate = undefined;
		if (stopped || pending.length === 0) return;
		const batch = pending;
		pending = [];
		slots = new Map();
		lastFlush = performance.now();
		deliver(() => sink.onBatch(batch));
	};
	const schedule = () => {
		if (batchTimer || immediate || stopped) return;
		const wait = lastFlush + batchMs - performance.now();
		// after a quiet spell: deliver on the next turn (the changes of one network read stay together)
		if (wait <= 0) immediate = setImmediate(flush);
		else batchTimer = setTimeout(flush, wait);
	};

	const push = (change: WatchChange) => {
		if (stopped) return;
		if (change.op === 'reset') {
			// A reset supersedes everything of its kind still waiting.
			if (pending.some((c) => c.kind === change.kind)) {
				pending = pending.filter((c) => c.kind !== change.kind);
				slots = new Map();
				pending.forEach((c, i) => {
					if (c.op !== 'reset') slots.set(`${c.kind}\u0000${c.object.metadata.name}`, i);
				});
			}
			pending.push(change);
		} else {
			const key = `${change.kind}\u0000${change.object.metadata.name}`;
			const at = slots.get(key);
			if (at !== undefined) pending[at] = change;
			else {
				slots.set(key, pending.length);
				pending.push(change);
			}
		}
		schedule();
	};

	const onState = (kind: WatchKind, state: ConnectionState) => {
		if (stopped) return;
		byKind[kind] = state;
		// What the sink holds must be current before it hears the connection is fine.
		flush();
		const next = worstState(kinds.map((k) => byKind[k]));
		overall = next;
		const snapshot = { ...byKind };
		deliver(() => sink.onConnection(next, snapshot));
	};

	const watches: ResilientWatch[] = kinds.map((kind) => {
		const resource: WatchedResource = {
			plural: kind,
			namespace: opts.namespace,
			...RESOURCES[kind],
		};
		return startResilientWatch(
			kube,
			resource,
			{
				labelSelector,
				timeoutSeconds: opts.timeoutSeconds,
				silenceMs: opts.silenceMs,
				backoffMs: opts.backoffMs,
			},
			{
				onReset: (objects) => push({ kind, op: 'reset', objects }),
				onChange: (op, object) => push({ kind, op, object }),
				onState: (state) => onState(kind, state),
			},
		);
	});

	return {
		stop() {
			if (stopped) return;
			stopped = true;
			for (const w of watches) w.stop();
			if (batchTimer) clearTimeout(batchTimer);
			batchTimer = undefined;
			if (immediate) clearImmediate(immediate);
			immediate = undefined;
			pending = [];
			slots = new Map();
		},
		connection: () => overall,
	};
}
