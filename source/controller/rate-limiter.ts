/**
 * How long a failed key waits before its next try, like client-go's default controller rate
 * limiter: the longer of a per-key exponential backoff (doubling from initialMs, capped at
 * maxMs) and an overall token bucket (qps, burst) that keeps many failing keys from
 * hammering the API server together.
 */

import type { Clock } from './clock.js';

/** Settings of a rate limiter. */
export interface RateLimiterOptions {
	/** The first retry delay of a key (ms). */
	initialMs: number;
	/** The longest retry delay of a key (ms). */
	maxMs: number;
	/** Retries per second across all keys, after the burst. */
	qps: number;
	/** Retries allowed at once before qps applies. */
	burst: number;
}

/** Per-key exponential backoff combined with an overall token bucket. */
export class RateLimiter<K = string> {
	private readonly failures = new Map<K, number>();
	private tokens: number;
	private last: number;

	constructor(
		private readonly opts: RateLimiterOptions,
		private readonly clock: Clock,
	) {
		this.tokens = opts.burst;
		this.last = clock.now();
	}

	/** Counts a failure of key and says how long it waits before its next try (ms). */
	when(key: K): number {
		const n = (this.failures.get(key) ?? 0) + 1;
		this.failures.set(key, n);
		const backoff = Math.min(this.opts.maxMs, this.opts.initialMs * 2 ** Math.min(n - 1, 40));
		return Math.max(backoff, this.bucketDelay());
	}

	/** How many times in a row key has failed. */
	failuresOf(key: K): number {
		return this.failures.get(key) ?? 0;
	}

	/** Forgets key's failures (after a success, or when the key goes away). */
	forget(key: K): void {
		this.failures.delete(key);
	}

	/** Takes a token; the delay until it is there (ms). */
	private bucketDelay(): number {
		const now = this.clock.now();
		this.tokens = Math.min(
			this.opts.burst,
			this.tokens + ((now - this.last) / 1000) * this.opts.qps,
		);
		this.last = now;
		this.tokens -= 1;
		return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.opts.qps) * 1000);
	}
}
