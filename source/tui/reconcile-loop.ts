/**
 * The live reconcile loop (`a`): reconciles the pool on an interval and soon after the watch
 * sees a change, one run at a time, with a short pause between runs so that the changes a
 * run makes do not drive it in a tight circle.
 */

import type { ConsoleStore } from './store.js';

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
	/** Runs one reconcile; must not throw (it logs its own errors). */
	reconcileOnce(pool: string): Promise<void>;
	intervalMs?: number;
	/** Pause after a watch change before reconciling, and between two runs (ms). */
	settleMs?: number;
}

/** Creates a stopped loop. */
export function createReconcileLoop(opts: ReconcileLoopOptions): ReconcileLoop {
	const { store } = opts;
	const intervalMs = opts.intervalMs ?? store.getState().loop.intervalMs;
	const settleMs = opts.settleMs ?? 1000;
	let pool: string | null = null;
	let interval: NodeJS.Timeout | null = null;
	let soon: NodeJS.Timeout | null = null;
	let unsubscribe: (() => void) | null = null;
	let running = false;
	let again = false;

	const schedule = (delay: number) => {
		if (!pool || soon) return;
		soon = setTimeout(() => {
			soon = null;
			void run();
		}, delay);
		soon.unref?.();
	};

	const run = async () => {
		const target = pool;
		if (!target) return;
		if (running) {
			again = true;
			return;
		}
		running = true;
		again = false;
		store.getState().setLoop({ running: true });
		try {
			await opts.reconcileOnce(target);
		} finally {
			running = false;
			if (pool === target) store.getState().setLoop({ running: false, lastRun: Date.now() });
			if (again) schedule(settleMs);
		}
	};

	const stop = () => {
		if (interval) clearInterval(interval);
		if (soon) clearTimeout(soon);
		unsubscribe?.();
		interval = null;
		soon = null;
		unsubscribe = null;
		pool = null;
		again = false;
		store.getState().setLoop({ on: false, running: false });
	};

	return {
		start(p) {
			stop();
			pool = p;
			store.getState().setLoop({ on: true, running: false });
			interval = setInterval(() => void run(), intervalMs);
			interval.unref?.();
			let seen = store.getState().pools[p];
			unsubscribe = store.subscribe((s) => {
				const now = s.pools[p];
				if (now === seen) return;
				seen = now;
				if (running) again = true;
				else schedule(settleMs);
			});
			void run();
		},
		stop,
		pool: () => pool,
	};
}
