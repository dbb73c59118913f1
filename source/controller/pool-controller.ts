/**
 * The pool reconciler: one watch per kind over the namespace (or every namespace) feeding a
 * pool cache, one controller whose keys are pools, and the engine's reconcile as its work.
 * Pools whose definition appears are reconciled at once, pools whose definition goes away
 * are dropped, and a change to a pool's objects reconciles it once things settle.
 */

import type { Engine } from '../engine/engine.js';
import { type ReconcileResult, reconcile } from '../engine/reconcile.js';
import type { TraceSink } from '../engine/reconcile-plan.js';
import type { Kube } from '../kube/config.js';
import type { ConnectionState } from '../kube/connection-state.js';
import { guardHandler } from '../kube/handler-errors.js';
import { type PoolWatch, startPoolWatch, type WatchKind } from '../kube/pool-watch.js';
import { isTerminalPoolError } from '../pool/errors.js';
import type { Clock } from './clock.js';
import { Controller, type Disposition, StepsFailed } from './controller.js';
import { createReconcilerMetrics, type ReconcilerMetrics } from './metrics.js';
import { PoolCache, poolKey, splitPoolKey } from './pool-cache.js';
import { startRefusalWatch } from './refusal-watch.js';

/** How soon a pool with members still Starting or Terminating is looked at again (ms). */
export const BUSY_REQUEUE_MS = 10_000;
/** How long after a reconciler Lease's expiry the pool is looked at again. */
const LEASE_EXPIRY_MARGIN_MS = 500;

/**
 * The retry delays of a failing pool (ms): controller-runtime's per-item exponential failure
 * limiter (from 5 ms, doubling) with a cap of 5 minutes, the longest replace backoff; the
 * controller takes the longer of it and an overall bucket (10 retries a second, burst 100).
 */
export const POOL_BACKOFF = { initialMs: 5, maxMs: 300_000 } as const;

/** Settings of a pool controller. */
export interface PoolControllerOptions {
	kube: Kube;
	/** The namespace to reconcile in; null = every namespace the identity can list. */
	namespace: string | null;
	/** One pool only (in namespace); absent = every pool. */
	pool?: string;
	/** Every pool is reconciled at least this often (ms). */
	resyncMs: number;
	/** How long watch events are gathered before a reconcile (ms, default 1000). */
	settleMs?: number;
	/** Pools reconciled at once (default 4). */
	workers?: number;
	/** Retry delays of a failing pool (default POOL_BACKOFF). */
	backoff?: { initialMs: number; maxMs: number };
	clock?: Clock;
	/** The engine every reconcile runs through, in its pool's namespace (one for the controller). */
	engine: Engine;
	/** A reconcile that ran (its errors, if any, are failed steps; retried with backoff). */
	onReconciled?(key: string, result: ReconcileResult): void;
	/** A reconcile that threw: retried with backoff, or (terminal) not until the definition changes. */
	onFailed?(key: string, disposition: Exclude<Disposition, { kind: 'ok' }>): void;
	/** A pool appeared or went away (every-pool mode). */
	onPools?(added: string[], removed: string[]): void;
	/** The watches' connection state changed. */
	onConnection?(overall: ConnectionState, byKind: Record<WatchKind, ConnectionState>): void;
	/**
	 * Count refused claims (ctpool_claims_refused_total) from ctpool's Events, by whoever made
	 * the claims. Optional: readiness never waits for the Events watch.
	 */
	countRefusals?: boolean;
	/** The Events of refused claims cannot be read (told once; the counter stays absent). */
	onRefusalsUnreadable?(reason: string): void;
	/** Start standing by: watch and keep the caches, reconcile nothing until lead(). */
	standby?: boolean;
}

/** A running pool controller. */
export interface PoolController {
	/** The controller of the current term (a fresh one each time this process starts leading). */
	readonly controller: Controller;
	cache: PoolCache;
	metrics: ReconcilerMetrics;
	/** Whether it reconciles now (false while it stands by: watches and caches kept warm). */
	isActive(): boolean;
	/** Starts reconciling every pool it knows (it leads now). */
	lead(): void;
	/** Stops reconciling at once: no step starts, waits are aborted (another process leads). */
	standDown(): Promise<void>;
	/** Why it is not ready (a watch not in sync yet), or null when every watch is. */
	notReady(): string | null;
	/** Stops the watches and the controller; resolves once running reconciles ended. */
	stop(): Promise<void>;
}

/** A controller over the cache, whose reconciles run under the term's signal. */
function poolWorkController(
	opts: PoolControllerOptions,
	cache: PoolCache,
	metrics: ReconcilerMetrics,
	signal: AbortSignal,
): Controller {
	return new Controller({
		resyncMs: opts.resyncMs,
		backoff: opts.backoff ?? POOL_BACKOFF,
		...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
		...(opts.workers !== undefined ? { workers: opts.workers } : {}),
		...(opts.clock ? { clock: opts.clock } : {}),
		isTerminal: isTerminalPoolError,
		version: (key) => cache.version(key),
		async reconcile(key) {
			const { namespace, pool } = splitPoolKey(key);
			const outer = opts.engine.ctx.onTrace;
			const onTrace: TraceSink = (e) => {
				metrics.traced(e);
				outer?.(e);
			};
			const result = await reconcile(opts.engine.context({ namespace, signal, onTrace }), pool);
			// a listener's failure is told, and is not the pool's (no retry for it)
			guardHandler(
				() => `the result of pool ${key}`,
				() => opts.onReconciled?.(key, result),
			);
			const busy = result.status.members.some(
				(m) => m.state === 'Starting' || m.state === 'Terminating',
			);
			// a reconciler Lease of another process: look again once it expires (a holder that
			// died mid-step is taken over then, not at the next resync)
			const leaseWait = result.reconcilerLeaseExpiresInMs;
			const after = Math.min(
				busy ? BUSY_REQUEUE_MS : Number.POSITIVE_INFINITY,
				leaseWait !== undefined ? leaseWait + LEASE_EXPIRY_MARGIN_MS : Number.POSITIVE_INFINITY,
			);
			return {
				failed: result.errors.length > 0,
				...(Number.isFinite(after) ? { requeueAfterMs: after } : {}),
			};
		},
		onDone(key, disposition, durationMs) {
			metrics.reconciled(key, durationMs / 1000, disposition.kind !== 'ok');
			// a failed step was reported with its result; a thrown error is reported here
			if (
				disposition.kind !== 'ok' &&
				!(disposition.kind === 'retry' && disposition.error instanceof StepsFailed)
			)
				guardHandler(
					() => `the failure of pool ${key}`,
					() => opts.onFailed?.(key, disposition),
				);
		},
	});
}

/**
 * Starts watching and reconciling (or, with standby, only watching until lead()); runs
 * until stop().
 */
export function startPoolController(opts: PoolControllerOptions): PoolController {
	const cache = new PoolCache();
	const clock = opts.clock;
	const metrics = createReconcilerMetrics(cache, () => clock?.now() ?? Date.now());
	const single =
		opts.pool !== undefined && opts.namespace !== null ? poolKey(opts.namespace, opts.pool) : null;
	/** The current term: its controller and the signal that ends its reconciles. */
	let term: { controller: Controller; abort: AbortController } | null = null;
	/** A controller that never runs, for the time between terms. */
	const idle = new Controller({ resyncMs: opts.resyncMs, reconcile: async () => undefined });
	void idle.stop();
	let stopped = false;
	const lead = () => {
		if (term || stopped) return;
		const abort = new AbortController();
		const controller = poolWorkController(opts, cache, metrics, abort.signal);
		term = { controller, abort };
		metrics.leading(true);
		if (single) controller.enqueue(single);
		else for (const key of cache.keys()) controller.enqueue(key);
	};
	const standDown = async () => {
		const ending = term;
		term = null;
		metrics.leading(false);
		if (!ending) return;
		ending.abort.abort();
		await ending.controller.stop();
	};
	const controller = () => term?.controller ?? idle;

	let overall: ConnectionState = { phase: 'connecting', since: Date.now() };
	const watch: PoolWatch = startPoolWatch(
		opts.kube,
		{
			...(opts.namespace !== null ? { namespace: opts.namespace } : {}),
			...(opts.pool !== undefined ? { pool: opts.pool } : {}),
		},
		{
			onBatch(changes) {
				const delta = cache.apply(changes);
				const work = controller();
				if (single) {
					if (delta.touched.includes(single)) work.notify(single);
					return;
				}
				for (const key of delta.removed) {
					work.remove(key);
					metrics.forget(key);
				}
				for (const key of delta.added) work.enqueue(key);
				for (const key of delta.touched)
					if (cache.defined(key) && !delta.added.includes(key)) work.notify(key);
				if (delta.added.length > 0 || delta.removed.length > 0)
					opts.onPools?.(delta.added, delta.removed);
			},
			onConnection(state, byKind) {
				overall = state;
				metrics.connection(byKind);
				opts.onConnection?.(state, byKind);
			},
		},
	);
	if (!opts.standby) lead();
	let toldUnreadable = false;
	const refusals = opts.countRefusals
		? startRefusalWatch(opts.kube, {
				...(opts.namespace !== null ? { namespace: opts.namespace } : {}),
				...(single && opts.pool !== undefined ? { pool: opts.pool } : {}),
				sink: { refused: (key, n) => metrics.claimRefused(key, n) },
				onState(state) {
					metrics.connection({ events: state });
					if (state.phase === 'synced') metrics.countingRefusals(true);
					if (state.phase !== 'failed') return;
					metrics.countingRefusals(false);
					if (!toldUnreadable) opts.onRefusalsUnreadable?.(state.reason);
					toldUnreadable = true;
				},
			})
		: null;

	return {
		get controller() {
			return controller();
		},
		cache,
		metrics,
		isActive: () => term !== null,
		lead,
		standDown,
		notReady() {
			if (overall.phase === 'synced') return null;
			if (overall.phase === 'reconnecting') return `a watch is reconnecting: ${overall.lastError}`;
			if (overall.phase === 'failed') return `a watch failed: ${overall.reason}`;
			return 'the watches are not in sync yet';
		},
		async stop() {
			watch.stop();
			refusals?.stop();
			stopped = true;
			await standDown();
		},
	};
}
