/**
 * The console's operations over the engine: each runs in the background and reports into the
 * store. One module per operation (engine-ops/), over a shared context (engine-ops/context.ts);
 * this composes them with the live reconcile loop.
 */

import {
	actingIdentity,
	type ClaimFeed,
	createEngine,
	type EngineContextOptions,
} from '../../engine/index.js';
import type { Kube } from '../../kube/config.js';
import { waitAtMost } from '../../kube/retry.js';
import type { ConsoleStore } from '../store/store.js';
import { bulkOp } from './engine-ops/bulk.js';
import { claimOp } from './engine-ops/claim.js';
import { opsContext } from './engine-ops/context.js';
import { detailsReads } from './engine-ops/events.js';
import { logFollower } from './engine-ops/follow-log.js';
import { maintenanceOp } from './engine-ops/maintenance.js';
import { reconcileOp, reconcilePass } from './engine-ops/reconcile.js';
import { releaseOp } from './engine-ops/release.js';
import { releaseExpiredOp } from './engine-ops/release-expired.js';
import type { ConsoleOperations } from './operations.js';
import { createReconcileLoop, type ReconcileLoop } from './reconcile-loop.js';

/** Who the console acts as when no --identity is given: the CLI's rule (CTPOOL_IDENTITY, else user@host). */
export function defaultActor(): string {
	return actingIdentity(undefined, process.env);
}

/** Options of the engine-backed operations. */
export interface EngineOperationsOptions {
	store: ConsoleStore;
	kube: Kube;
	/** The console's namespace; a pool keyed `namespace/pool` (-A) is acted on in its own. */
	namespace: string;
	/** Who acts (log, Kubernetes Events, and the releasing identity of a forced release). */
	actor: string;
	/** Overrides of the engine's settings (tests shorten the delete wait). */
	engine?: EngineContextOptions;
	loopIntervalMs?: number;
	/** The console's watch as each pool's claim feed (poolWatchFeeds): its claims answer from it. */
	claimFeed?: (namespace: string, pool: string) => ClaimFeed;
}

/** The operations, plus the loop they drive and a way to stop everything. */
export interface EngineOperations extends ConsoleOperations {
	loop: ReconcileLoop;
	/** Stops the loop and aborts the waits of running operations. */
	close(): void;
	/**
	 * Resolves once the user operation in flight has ended (at once when none runs), or after
	 * at most timeoutMs: an abandoned operation hands its member back before ctpool exits.
	 */
	settle(timeoutMs: number): Promise<void>;
	/**
	 * Resolves once the writes left after an answer (a claim's display copy, Events) are done,
	 * or after at most timeoutMs: the console gives them a moment before it exits.
	 */
	flushWrites(timeoutMs: number): Promise<void>;
}

/** Creates the console's operations over the engine. */
export function createEngineOperations(opts: EngineOperationsOptions): EngineOperations {
	const { store, kube, namespace, actor } = opts;
	const abort = new AbortController();
	// One engine for the console's connection: its operations and its loop share its caches.
	const engine = createEngine(kube, { namespace, actor, signal: abort.signal, ...opts.engine });
	const ops = opsContext(store, engine, namespace, actor, abort.signal, opts.claimFeed);
	const details = detailsReads(ops);
	const log = logFollower(ops);
	const loop = createReconcileLoop({
		store,
		intervalMs: opts.loopIntervalMs ?? store.getState().loop.intervalMs,
		reconcileOnce: (key) => reconcilePass(ops, key),
	});
	return {
		loop,
		claim: (key, identity) => claimOp(ops, key, identity),
		release: (key, member) => releaseOp(ops, key, member),
		reconcile: (key) => reconcileOp(ops, key),
		toggleLoop: (pool) => toggleLoop(store, loop, pool),
		maintenance: (key, member, on, reason) => maintenanceOp(ops, key, member, on, reason),
		bulk: (key, action, members, reason) => bulkOp(ops, key, action, members, reason),
		releaseExpired: (claims) => releaseExpiredOp(ops, claims),
		loadEvents: (member) => details.loadEvents(member),
		followLog: (member, previous) => log.follow(member, previous),
		stopLog: () => log.stop(),
		close() {
			details.close();
			loop.stop();
			log.stop();
			abort.abort();
		},
		async settle(timeoutMs) {
			if (!ops.running || store.getState().busy === null) return;
			await waitAtMost(ops.running, timeoutMs);
		},
		flushWrites: (timeoutMs) => waitAtMost(engine.flush(), timeoutMs),
	};
}

/** Turns the live reconcile loop on (for the pool) or off, and says so. */
function toggleLoop(store: ConsoleStore, loop: ReconcileLoop, pool: string | null): void {
	if (loop.pool()) {
		loop.stop();
		store.getState().setStatus('live reconcile loop off');
	} else if (pool) {
		loop.start(pool);
		store
			.getState()
			.setStatus(
				`live reconcile loop on for ${pool}: every ${Math.round(store.getState().loop.intervalMs / 1000)}s and after each change`,
			);
	}
}
