/**
 * A reconcile controller shaped like controller-runtime's: a de-duplicating work queue of
 * keys (pools), a few workers (never two on one key), a resync interval, immediate work on
 * a relevant watch event (gathered for settleMs, so that a burst of events makes one
 * reconcile), a result that may ask to be looked at again sooner (requeue-after), per-key
 * exponential backoff on failure with a cap and an overall rate limit, and terminal errors
 * (a definition that can never work as it is) reported once and not retried until the
 * definition changes.
 *
 * Stricter than controller-runtime on one point: a watch event of a key that is backing off
 * does not bring its retry forward (a failing pass's own writes come back as events, and
 * would otherwise make a hot loop whose backoff never grows). Only a change of the key's
 * definition (its version) or a success ends a backoff; a reconcile is level-triggered, so
 * the retry sees every change the events told of.
 */

import { reportHandlerError } from '../kube/handler-errors.js';
import { type Clock, systemClock } from './clock.js';
import { RateLimiter } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

/** What one reconcile of a key came to. */
export interface ReconcileOutcome {
	/** Look at the key again after this long (ms), sooner than the resync. */
	requeueAfterMs?: number;
	/** The reconcile ran but failed (a step failed): try again with backoff. */
	failed?: boolean;
}

/** The error of a reconcile that ran but reported failed (its steps' errors went with its result). */
export class StepsFailed extends Error {
	constructor() {
		super('a step of the reconcile failed');
		this.name = 'StepsFailed';
	}
}

/** What the controller does next with a key, for reporting. */
export type Disposition =
	| { kind: 'ok'; nextInMs: number }
	| { kind: 'retry'; error: unknown; failures: number; retryInMs: number }
	| { kind: 'terminal'; error: unknown };

/** Settings of a controller. */
export interface ControllerOptions {
	/** Reconciles one key; throws or reports failed to be retried with backoff. */
	reconcile(key: string): Promise<ReconcileOutcome | undefined>;
	/** The clock of every delay (default: the system clock). */
	clock?: Clock;
	/** Each key is reconciled at least this often (ms). */
	resyncMs: number;
	/** How long watch events of a key are gathered before it is reconciled (ms, default 1000). */
	settleMs?: number;
	/** Retry delays of a failing key (ms): from initialMs doubling to maxMs (default 1000 to resyncMs). */
	backoff?: { initialMs: number; maxMs: number };
	/** Overall retry rate (default 10 per second after a burst of 100, as in client-go). */
	rate?: { qps: number; burst: number };
	/** Keys reconciled at once (default 4; one key is never reconciled twice at once). */
	workers?: number;
	/** Whether an error can never go away by retrying (only a definition change helps). */
	isTerminal?(err: unknown): boolean;
	/**
	 * The definition's version of a key (its spec as last seen, say): a key stopped by a
	 * terminal error is tried again once this changes.
	 */
	version?(key: string): string | undefined;
	/** Hears how each reconcile ended (a terminal error only once). */
	onDone?(key: string, disposition: Disposition, durationMs: number): void;
}

/** A running controller. */
export class Controller {
	private readonly clock: Clock;
	private readonly queue: WorkQueue<string>;
	private readonly limiter: RateLimiter<string>;
	private readonly settleMs: number;
	/** Keys stopped by a terminal error, with the version that failed. */
	private readonly terminal = new Map<string, string | undefined>();
	/** Keys removed while being reconciled: no requeue afterwards. */
	private readonly removed = new Set<string>();
	/** Keys backing off after a failure, with the definition's version that failed. */
	private readonly failing = new Map<string, string | undefined>();
	private stopped = false;

	constructor(private readonly opts: ControllerOptions) {
		this.clock = opts.clock ?? systemClock;
		this.settleMs = opts.settleMs ?? 1000;
		const backoff = opts.backoff ?? { initialMs: 1000, maxMs: opts.resyncMs };
		this.limiter = new RateLimiter(
			{
				initialMs: backoff.initialMs,
				maxMs: Math.max(backoff.initialMs, backoff.maxMs),
				qps: opts.rate?.qps ?? 10,
				burst: opts.rate?.burst ?? 100,
			},
			this.clock,
		);
		this.queue = new WorkQueue<string>({
			batchSize: 1,
			workers: opts.workers ?? 4,
			clock: this.clock,
			handle: ([key]) => this.process(key!),
			// process() catches the reconcile's errors; anything else is told, and the queue goes on
			onError: (err, keys) => reportHandlerError(`the reconcile of ${keys.join(', ')}`, err),
		});
	}

	/** Reconciles key as soon as a worker is free (a key already waiting is not added twice). */
	enqueue(key: string): void {
		this.removed.delete(key);
		this.queue.add(key);
	}

	/** Reconciles key after ms (an earlier time already set for it stands). */
	notifyAfter(key: string, ms: number): void {
		this.removed.delete(key);
		this.queue.addAfter(key, ms);
	}

	/**
	 * A relevant watch event of key: reconcile it once the events have settled; for a key
	 * backing off with the same definition, at its retry (the event does not bring it forward).
	 */
	notify(key: string): void {
		this.removed.delete(key);
		if (this.backingOff(key)) return;
		this.queue.addAfter(key, this.settleMs);
	}

	/** The key is gone (its pool was deleted): drop its work, failures and terminal mark. */
	remove(key: string): void {
		this.removed.add(key);
		this.queue.forget(key);
		this.limiter.forget(key);
		this.failing.delete(key);
		this.terminal.delete(key);
	}

	/** Whether key waits for a retry after a failure (and its definition did not change since). */
	backingOff(key: string): boolean {
		if (!this.failing.has(key)) return false;
		if (this.failing.get(key) === this.opts.version?.(key)) return true;
		this.failing.delete(key);
		this.limiter.forget(key);
		return false;
	}

	/** Whether key is stopped by a terminal error. */
	isStopped(key: string): boolean {
		return this.terminal.has(key);
	}

	/** When key is due next (ms since the epoch), or undefined when it waits for nothing timed. */
	dueAt(key: string): number | undefined {
		return this.queue.dueAt(key);
	}

	/** Resolves once no key waits and no reconcile runs (timed requeues aside). */
	idle(): Promise<void> {
		return this.queue.idle();
	}

	/** Stops: no new reconcile starts; resolves once the running ones ended. */
	async stop(): Promise<void> {
		this.stopped = true;
		this.queue.stop();
		await this.queue.idle();
	}

	private async process(key: string): Promise<void> {
		if (this.stopped) return;
		const version = this.opts.version?.(key);
		if (this.terminal.has(key)) {
			if (this.terminal.get(key) === version) return;
			this.terminal.delete(key);
			this.limiter.forget(key);
		}
		const started = this.clock.now();
		let disposition: Disposition;
		try {
			const outcome = (await this.opts.reconcile(key)) ?? {};
			if (outcome.failed) disposition = this.retry(key, new StepsFailed());
			else {
				this.limiter.forget(key);
				this.failing.delete(key);
				const requeue = outcome.requeueAfterMs;
				const nextInMs =
					requeue !== undefined && requeue >= 0
						? Math.min(requeue, this.opts.resyncMs)
						: this.opts.resyncMs;
				disposition = { kind: 'ok', nextInMs };
			}
		} catch (err) {
			if (this.opts.isTerminal?.(err)) {
				this.terminal.set(key, version);
				this.limiter.forget(key);
				this.failing.delete(key);
				disposition = { kind: 'terminal', error: err };
			} else disposition = this.retry(key, err);
		}
		if (this.stopped) return;
		if (!this.removed.has(key)) this.requeue(key, disposition, version);
		try {
			this.opts.onDone?.(key, disposition, this.clock.now() - started);
		} catch (err) {
			// a reporting sink's failure is not the controller's: told, and the controller goes on
			reportHandlerError(`the report of ${key}'s reconcile`, err);
		}
	}

	/**
	 * Puts key back after a reconcile: at its resync or requeue-after (an event meanwhile
	 * keeps its earlier time); after a failure, at its retry and not before, unless the
	 * definition changed during the pass (then once events settle, with no backoff).
	 */
	private requeue(key: string, disposition: Disposition, version: string | undefined): void {
		if (disposition.kind === 'ok') this.queue.addAfter(key, disposition.nextInMs);
		if (disposition.kind !== 'retry') return;
		this.failing.set(key, version);
		// events during the pass (its own writes among them) are covered by the retry
		this.queue.forget(key);
		if (this.backingOff(key)) this.queue.addAfter(key, disposition.retryInMs);
		else this.queue.addAfter(key, this.settleMs);
	}

	private retry(key: string, error: unknown): Disposition {
		const retryInMs = this.limiter.when(key);
		return { kind: 'retry', error, failures: this.limiter.failuresOf(key), retryInMs };
	}
}
