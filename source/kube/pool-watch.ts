/**
 * The live view of pools: a resilient list + watch of pods, PVCs, ConfigMaps and Leases
 * carrying the pool label, with changes batched for the store and one connection state.
 */
import { POOL_LABEL } from '../pool/names.js';
import type { Kube } from './config.js';
import { type ConnectionState, worstState } from './connection-state.js';
import { guardHandler, objectName } from './handler-errors.js';
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
	/** The namespace; absent = every namespace (one cluster-wide watch per kind). */
	namespace?: string;
	/** One pool; absent = every pool in the namespace. */
	pool?: string;
	kinds?: WatchKind[];
	/**
	 * The shortest time between two batches (ms, default 50): a change after a quiet spell is
	 * delivered at once; changes within batchMs of the last batch are gathered into the next.
	 */
	batchMs?: number;
	/**
	 * Changes that must be shown soon (say, of what is on screen): when one waits, the batch
	 * goes urgentBatchMs after the last one instead of batchMs. Absent: none is.
	 */
	urgent?: (change: WatchChange) => boolean;
	/** The shortest time between two batches when an urgent change waits (ms, default 16). */
	urgentBatchMs?: number;
	/**
	 * Told each full list of a kind as it arrives, before it waits in a batch (the objects as
	 * listed: not read at any boundary yet, and not to be mutated).
	 */
	onList?: (kind: WatchKind, objects: readonly KubeObject[]) => void;
	/**
	 * Told each page of a list as it arrives, while the next is on its way (the objects as
	 * listed, not to be mutated; they come again in the list's reset): for work per object
	 * that can be done ahead of the batch.
	 */
	onListPage?: (kind: WatchKind, objects: readonly KubeObject[]) => void;
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

/**
 * A sink that keeps what it hears until it is attached to the real one, then hands that over
 * in order and forwards the rest: a watch can start (its lists on their way) before what
 * will show its changes is ready. What it kept goes as one batch (the changes in the order
 * heard), so the consumer derives its picture once, not once per list that came meanwhile.
 */
export class DeferredSink implements PoolWatchSink {
	private target: PoolWatchSink | null = null;
	private batches: WatchChange[][] = [];
	private connection: [ConnectionState, Record<WatchKind, ConnectionState>] | null = null;

	onBatch(changes: WatchChange[]): void {
		if (this.target) this.target.onBatch(changes);
		else this.batches.push(changes);
	}

	onConnection(overall: ConnectionState, byKind: Record<WatchKind, ConnectionState>): void {
		if (this.target) this.target.onConnection(overall, byKind);
		else this.connection = [overall, byKind];
	}

	/** Hands over what was heard (the batches, then the latest connection state), then forwards. */
	attach(sink: PoolWatchSink): void {
		const batches = this.batches;
		const connection = this.connection;
		this.batches = [];
		this.connection = null;
		this.target = sink;
		const kept = batches.length === 1 ? batches[0]! : batches.flat();
		if (kept.length > 0)
			deliver(
				() => batchName(kept),
				() => sink.onBatch(kept),
			);
		if (connection)
			deliver(
				() => 'the connection state',
				() => sink.onConnection(...connection),
			);
	}
}

/** A running pool watch. */
export interface PoolWatch {
	/** Stops every watch and timer; the sink hears nothing more. */
	stop(): void;
	/** The overall connection state now. */
	connection(): ConnectionState;
}

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

/**
 * Hands a batch (or a state) to the sink; an error the sink throws is told in one line naming
 * what it was handed (handler-errors.ts), never rethrown: one bad object must not end the
 * process nor stop the watch.
 */
function deliver(what: () => string, fn: () => void): void {
	guardHandler(what, fn);
}

/** Names the objects of a batch, the first three of them. */
function batchName(batch: readonly WatchChange[]): string {
	const names = batch
		.slice(0, 3)
		.map((c) => (c.op === 'reset' ? `a list of ${c.kind}` : objectName(c.object)));
	return `a batch of ${batch.length} change${batch.length === 1 ? '' : 's'} (${names.join(', ')}${batch.length > 3 ? ', ...' : ''})`;
}

/** The slot of one object's changes in a batch: kind, namespace and name. */
function changeSlot(kind: WatchKind, o: KubeObject): string {
	return `${kind}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name}`;
}

/**
 * Gathers watch changes into batches: the first change after a quiet spell (no batch for
 * batchMs) is handed over on the next turn of the event loop; later ones are gathered until
 * batchMs after the last batch, or urgentMs after it once an urgent change waits. Repeated
 * changes of one object keep only the latest, and a reset drops what of its kind is still
 * waiting.
 */
export class ChangeBatcher {
	private pending: WatchChange[] = [];
	/** Index in pending of the last upsert/delete per kind and object, to coalesce repeats. */
	private slots = new Map<string, number>();
	private timer: ReturnType<typeof setTimeout> | undefined;
	private immediate: ReturnType<typeof setImmediate> | undefined;
	private lastFlush = Number.NEGATIVE_INFINITY;
	private stopped = false;
	/** Whether an urgent change waits, and when the timer is set to fire. */
	private urgentWaits = false;
	private due = Number.POSITIVE_INFINITY;

	constructor(
		private readonly batchMs: number,
		private readonly onBatch: (changes: WatchChange[]) => void,
		private readonly urgency: {
			urgent?: (change: WatchChange) => boolean;
			urgentMs?: number;
		} = {},
	) {}

	/** Adds a change and makes sure a batch is on its way. */
	push(change: WatchChange): void {
		if (this.stopped) return;
		if (change.op === 'reset') {
			// A reset supersedes everything of its kind still waiting.
			if (this.pending.some((c) => c.kind === change.kind)) {
				this.pending = this.pending.filter((c) => c.kind !== change.kind);
				this.slots = new Map();
				this.pending.forEach((c, i) => {
					if (c.op !== 'reset') this.slots.set(changeSlot(c.kind, c.object), i);
				});
			}
			this.pending.push(change);
		} else {
			const key = changeSlot(change.kind, change.object);
			const at = this.slots.get(key);
			if (at !== undefined) this.pending[at] = change;
			else {
				this.slots.set(key, this.pending.length);
				this.pending.push(change);
			}
		}
		if (!this.urgentWaits && this.urgency.urgent?.(change)) this.urgentWaits = true;
		this.schedule();
	}

	/** Hands over what is waiting now (nothing when nothing is). */
	flush(): void {
		this.cancel();
		if (this.stopped || this.pending.length === 0) return;
		const batch = this.pending;
		this.pending = [];
		this.slots = new Map();
		this.urgentWaits = false;
		this.lastFlush = performance.now();
		this.onBatch(batch);
	}

	/** Drops what is waiting; nothing more is handed over. */
	stop(): void {
		this.stopped = true;
		this.cancel();
		this.pending = [];
		this.slots = new Map();
	}

	private schedule(): void {
		if (this.immediate || this.stopped) return;
		const interval = this.urgentWaits ? (this.urgency.urgentMs ?? 16) : this.batchMs;
		const due = this.lastFlush + interval;
		if (this.timer) {
			// an urgent change may bring the batch forward, never put it back
			if (due >= this.due) return;
			clearTimeout(this.timer);
			this.timer = undefined;
		}
		const wait = due - performance.now();
		// after a quiet spell: on the next turn (the changes of one network read stay together)
		if (wait <= 0) this.immediate = setImmediate(() => this.flush());
		else {
			this.due = due;
			this.timer = setTimeout(() => this.flush(), wait);
		}
	}

	private cancel(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		this.due = Number.POSITIVE_INFINITY;
		if (this.immediate) clearImmediate(this.immediate);
		this.immediate = undefined;
	}
}

/**
 * The urgency of a watch's changes while its first lists arrive: the first list is handed
 * over at once (the first frame), and so is the one that completes the picture; those between
 * wait (up to batchMs) to go together, so that a consumer derives the picture fewer times
 * while it fills. Every other change is as urgent as `then` says.
 */
export function firstListsUrgency(
	kinds: readonly WatchKind[],
	then?: (change: WatchChange) => boolean,
): (change: WatchChange) => boolean {
	const unlisted = new Set(kinds);
	return (change) => {
		if (change.op === 'reset' && unlisted.has(change.kind)) {
			const first = unlisted.size === kinds.length;
			unlisted.delete(change.kind);
			return first || unlisted.size === 0;
		}
		return then?.(change) ?? false;
	};
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
	const urgent = firstListsUrgency(kinds, opts.urgent);
	const batcher = new ChangeBatcher(
		batchMs,
		(batch) =>
			deliver(
				() => batchName(batch),
				() => sink.onBatch(batch),
			),
		{
			urgent,
			urgentMs: opts.urgentBatchMs,
		},
	);
	const push = (change: WatchChange) => {
		if (!stopped) batcher.push(change);
	};
	const flush = () => batcher.flush();

	const byKind = {} as Record<WatchKind, ConnectionState>;
	for (const k of WATCH_KINDS) byKind[k] = { phase: 'synced', since: started };
	for (const k of kinds) byKind[k] = { phase: 'connecting', since: started };
	let overall = worstState(kinds.map((k) => byKind[k]));

	const onState = (kind: WatchKind, state: ConnectionState) => {
		if (stopped) return;
		byKind[kind] = state;
		// What the sink holds must be current before it hears the connection is fine.
		flush();
		const next = worstState(kinds.map((k) => byKind[k]));
		overall = next;
		const snapshot = { ...byKind };
		deliver(
			() => 'the connection state',
			() => sink.onConnection(next, snapshot),
		);
	};

	const watches: ResilientWatch[] = kinds.map((kind) => {
		const resource: WatchedResource = { plural: kind, ...RESOURCES[kind] };
		if (opts.namespace !== undefined) resource.namespace = opts.namespace;
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
				onReset: (objects) => {
					if (stopped) return;
					if (opts.onList)
						deliver(
							() => `a list of ${objects.length} ${kind}`,
							() => opts.onList?.(kind, objects),
						);
					push({ kind, op: 'reset', objects });
				},
				onChange: (op, object) => push({ kind, op, object }),
				onState: (state) => onState(kind, state),
				...(opts.onListPage
					? {
							onPage: (objects: readonly KubeObject[]) => {
								if (!stopped) opts.onListPage?.(kind, objects);
							},
						}
					: {}),
			},
		);
	});

	return {
		stop() {
			if (stopped) return;
			stopped = true;
			for (const w of watches) w.stop();
			batcher.stop();
		},
		connection: () => overall,
	};
}
