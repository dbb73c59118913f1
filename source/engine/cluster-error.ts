/** Failed cluster calls turned into PoolErrors that name what was tried. */

import { describeError, type ErrorSubject } from '../kube/errors.js';
import { PoolError } from '../pool/errors.js';
import { poolNameProblem } from '../pool/names.js';

/** A PoolError('failed') naming the call that failed; a PoolError passes through unchanged. */
export function clusterError(err: unknown, subject: ErrorSubject): PoolError {
	if (err instanceof PoolError) return err;
	return new PoolError('failed', describeError(err, subject));
}

/** The reason a call failed, as one line (for `errors` and events). */
export function failureText(err: unknown, subject?: ErrorSubject): string {
	if (err instanceof PoolError) return err.message;
	return describeError(err, subject);
}

/** Throws PoolError('usage') when the pool name is unusable. */
export function checkPoolName(pool: string): void {
	const problem = poolNameProblem(pool);
	if (problem) throw new PoolError('usage', problem);
}

/** Throws when the signal was aborted: an operation stops between steps. */
export function checkAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new PoolError('failed', 'the operation was interrupted');
}
