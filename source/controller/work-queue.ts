/**
 * A de-duplicating work queue, shaped like client-go's: a key added while it waits is not
 * added twice; a key added while it is being handled is handled once more afterwards (never
 * twice at once); delayed adds keep the earliest time. Work runs on the next turn of the
 * event loop, outside the caller's stack, in batches (the simulated cluster's controllers
 * take every waiting key at once) or one key at a time with a few workers (the pool
 * controller).
 */

import { type Clock, systemClock, type TimerHandle } from './clock.js';

/** Options of a work queue. */
export interface WorkQueueOptions<K> {
	/** Handles a batch of keys; they count as being handled until it returns (or, for a promise, settles). */
	handle(keys: K[]): unknown;
	/** Receives what handle threw or rejected with; the queue goes on. */
	onError(err: unknown, keys: K[]): void;
	/** Most keys per batch (default: every waiting key). */
	batchSize?: number;
	/** Batches handled at once (default 1). */
	workers?: number;
	/** The clock of delayed adds (default: the system clock). */
	clock?: Clock;
}

/** Keys to handle, de-duplicated, handled on the next turn of the event loop. */
export class WorkQueue<K = string> {
	private readonly ready: K[] = [];
	/** Keys waiting to be handled (in ready, or to go there when their handling ends). */
	private readonly dirty = new Set<K>();
	private readonly processing = new Set<K>();
	private readonly delayed = new Map<K, { at: number; timer: TimerHandle }>();
	private readonly clock: Clock;
	private readonly batchSize: number;
	private readonly workers: number;
	private immediate: NodeJS.Immediate | null = null;
	private kicked = false;
	private active = 0;
	private stopped = false;
	private idleWaiters: Array<() => void> = [];

	constructor(private readonly opts: WorkQueueOptions<K>) {
		this.clock = opts.clock ?? systemClock;
		this.batchSize = Math.max(1, opts.batchSize ?? Number.POSITIVE_INFINITY);
		this.workers = Math.max(1, Math.floor(opts.workers ?? 1));
	}

	/** Adds a key (once) and makes sure it gets handled. */
	add(key: K): void {
		if (this.stopped) return;
		const later = this.delayed.get(key);
		if (later) {
			this.clock.clearTimeout(later.timer);
			this.delayed.delete(key);
		}
		if (this.dirty.has(key)) return;
		this.dirty.add(key);
		if (!this.processing.has(key)) this.ready.push(key);
		this.schedule();
	}

	/** Adds a key after ms; a key already due sooner keeps its earlier time. */
	addAfter(key: K, ms: number): void {
		if (this.stopped) return;
		if (ms <= 0) {
			this.add(key);
			return;
		}
		const at = this.clock.now() + ms;
		const known = this.delayed.get(key);
		if (known && known.at <= at) return;
		if (known) this.clock.clearTimeout(known.timer);
		const timer = this.clock.setTimeout(() => {
			if (this.delayed.get(key)?.timer !== timer) return;
			this.delayed.delete(key);
			this.add(key);
		}, ms);
		this.delayed.set(key, { at, timer });
	}

	/** When the key is due by a delayed add (ms since the epoch), or undefined. */
	dueAt(key: K): number | undefined {
		return this.delayed.get(key)?.at;
	}

	/** Makes sure a batch runs even when no key waits (the handler has other work). */
	kick(): void {
		if (this.stopped) return;
		this.kicked = true;
		this.schedule();
	}

	/** Drops a key: no longer waiting, no delayed add (a running handling goes on). */
	forget(key: K): void {
		const later = this.delayed.get(key);
		if (later) this.clock.clearTimeout(later.timer);
		this.delayed.delete(key);
		if (!this.dirty.delete(key)) return;
		const at = this.ready.indexOf(key);
		if (at >= 0) this.ready.splice(at, 1);
	}

	/** Keys waiting now (not delayed, not being handled). */
	waiting(): number {
		return this.ready.length;
	}

	/** Resolves once nothing waits and nothing is being handled (delayed adds aside). */
	idle(): Promise<void> {
		if (this.isIdle()) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	/** Drops pending and delayed work and stops for good; handlers running go on to their end. */
	stop(): void {
		this.stopped = true;
		if (this.immediate) clearImmediate(this.immediate);
		this.immediate = null;
		for (const { timer } of this.delayed.values()) this.clock.clearTimeout(timer);
		this.delayed.clear();
		this.ready.length = 0;
		this.dirty.clear();
		this.kicked = false;
		this.settleIdle();
	}

	private isIdle(): boolean {
		return this.active === 0 && (this.stopped || (this.ready.length === 0 && !this.kicked));
	}

	private settleIdle(): void {
		if (!this.isIdle()) return;
		const waiters = this.idleWaiters;
		this.idleWaiters = [];
		for (const w of waiters) w();
	}

	private schedule(): void {
		if (this.stopped || this.immediate || this.active >= this.workers) return;
		if (this.ready.length === 0 && !this.kicked) return;
		this.immediate = setImmediate(() => this.dispatch());
	}

	/** Starts up to one batch per free worker; keys added meanwhile wait for the next turn. */
	private dispatch(): void {
		this.immediate = null;
		let free = this.workers - this.active;
		while (!this.stopped && free-- > 0 && (this.ready.length > 0 || this.kicked)) {
			this.kicked = false;
			const keys = this.ready.splice(0, this.batchSize);
			for (const k of keys) {
				this.dirty.delete(k);
				this.processing.add(k);
			}
			this.active++;
			this.run(keys);
		}
	}

	private run(keys: K[]): void {
		let result: unknown;
		try {
			result = this.opts.handle(keys);
		} catch (err) {
			this.report(err, keys);
			this.finish(keys);
			return;
		}
		if (result && typeof (result as Promise<unknown>).then === 'function')
			(result as Promise<unknown>).then(
				() => this.finish(keys),
				(err: unknown) => {
					this.report(err, keys);
					this.finish(keys);
				},
			);
		else this.finish(keys);
	}

	private report(err: unknown, keys: K[]): void {
		try {
			this.opts.onError(err, keys);
		} catch {
			// an error sink's own failure must not stop the queue
		}
	}

	private finish(keys: K[]): void {
		this.active--;
		for (const k of keys) {
			this.processing.delete(k);
			if (this.dirty.has(k) && !this.stopped) this.ready.push(k);
		}
		this.schedule();
		this.settleIdle();
	}
}
