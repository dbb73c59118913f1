/**
 * The live reconcile loop (`a`): the reconcile controller on one pool. It reconciles on an
 * interval and once the watch's changes to the pool have settled, one run at a time; a
 * failed run is retried with backoff (never further apart than the interval); a definition
 * that cannot work is logged once and tried again only when it changes.
 */

import type { Clock } from '../../controller/clock.js';
import { Controller, type ReconcileOutcome } from '../../controller/controller.js';
import { isTerminalPoolError } from '../../pool/errors.js';
import type { ConsoleStore } from '../store/store.js';

/** A live reconcile loop. */
export interface ReconcileLoop {
	/** Starts reconciling the pool (stops a loop on another pool first). */
	start(pool: string): void;
	stop(): void;
	/** The pool it reconciles, or null when off. */
	pool(): string | null;
}

/** Options of the loop. */
export interface ReconcileLoopOptions {
	store: ConsoleStore;
	/**
	 * Runs one reconcile and logs what it did and its errors; resolves with the outcome
	 * (failed: a step failed) or throws the error it logged.
	 */
	reconcileOnce(pool: string): Promise<ReconcileOutcome | undefined>;
	intervalMs?: number;
	/** Pause after a watch change before reconciling (ms). */
	settleMs?: number;
	/** The clock of the loop's timers (tests inject one). */
	clock?: Clock;
}

/** What of a pool's definition a terminal error waits to see changed. */
function definitionVersion(store: ConsoleStore, pool: string): string | undefined {
	const p = store.getState().pools[pool];
	if (!p?.defined) return undefined;
	return JSON.stringify([p.spec, p.specError]);
}

/** Creates a stopped loop. */
export function createReconcileLoop(opts: ReconcileLoopOptions): ReconcileLoop {
	const { store } = opts;
	const intervalMs = opts.intervalMs ?? store.getState().loop.intervalMs;
	const settleMs = opts.settleMs ?? 1000;
	let pool: string | null = null;
	let controller: Controller | null = null;
	let unsubscribe: (() => void) | null = null;

	const stop = () => {
		unsubscribe?.();
		unsubscribe = null;
		void controller?.stop();
		controller = null;
		pool = null;
		store.getState().setLoop({ on: false, pool: null, running: false });
	};

	return {
		start(p) {
			stop();
			pool = p;
			store.getState().setLoop({ on: true, pool: p, running: false });
			const mine = new Controller({
				resyncMs: intervalMs,
				settleMs,
				workers: 1,
				...(opts.clock ? { clock: opts.clock } : {}),
				isTerminal: isTerminalPoolError,
				version: () => definitionVersion(store, p),
				async reconcile() {
					store.getState().setLoop({ running: true });
					try {
						return await opts.reconcileOnce(p);
					} finally {
						if (controller === mine)
							store.getState().setLoop({ running: false, lastRun: Date.now() });
					}
				},
			});
			controller = mine;
			let seen = store.getState().pools[p];
			unsubscribe = store.subscribe((s) => {
				const now = s.pools[p];
				if (now === seen) return;
				seen = now;
				mine.notify(p);
			});
			mine.enqueue(p);
		},
		stop,
		pool: () => pool,
	};
}
