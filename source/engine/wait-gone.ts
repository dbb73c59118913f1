/** Waiting until a deleted object is gone: polling with backoff, bounded, abortable. */

import { sleep } from '../kube/retry.js';
import { PoolError } from '../pool/errors.js';

/** What waitGone polls: resolves true while the object still exists. */
export type ExistsProbe = () => Promise<boolean>;

/** Options of a wait. */
export interface WaitGoneOptions {
	/** What is waited for, for messages: `pod desk-3`. */
	what: string;
	timeoutMs: number;
	signal?: AbortSignal;
	/** Called about once a second while waiting, with a line such as `waiting for pod desk-3 (3 s)`. */
	onProgress?: (message: string) => void;
	/** What to check when it stays (appended to the timeout error). */
	hint?: string;
}

/** First and longest pause between two polls (ms). */
export const POLL_BACKOFF = { initial: 50, max: 1000, factor: 1.6 };

/**
 * Resolves once exists() says false. Throws PoolError('failed') when the object is still
 * there after timeoutMs, or when the signal aborts the wait.
 */
export async function waitGone(exists: ExistsProbe, opts: WaitGoneOptions): Promise<void> {
	const start = Date.now();
	let pause = POLL_BACKOFF.initial;
	let lastProgress = start;
	for (;;) {
		if (!(await exists())) return;
		const elapsed = Date.now() - start;
		if (elapsed >= opts.timeoutMs)
			throw new PoolError(
				'failed',
				`${opts.what} is still there ${Math.round(elapsed / 1000)} s after its delete${opts.hint ? `; ${opts.hint}` : ''}`,
			);
		if (opts.signal?.aborted)
			throw new PoolError('failed', `interrupted while waiting for ${opts.what} to be deleted`);
		if (opts.onProgress && Date.now() - lastProgress >= 1000) {
			lastProgress = Date.now();
			opts.onProgress(`waiting for ${opts.what} to be deleted (${Math.round(elapsed / 1000)} s)`);
		}
		await sleep(Math.min(pause, Math.max(1, opts.timeoutMs - elapsed)), opts.signal);
		pause = Math.min(POLL_BACKOFF.max, pause * POLL_BACKOFF.factor);
	}
}
