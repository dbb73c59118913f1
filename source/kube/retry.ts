/**
 * The one retry policy of every cluster call (typed clients and raw lists and watches):
 * which failures are worth another try, how long to pause before it, and an abortable sleep.
 */

/** Pauses before the second, third and fourth try (ms; a random part is added). */
export const RETRY_PAUSES_MS = [100, 300, 900];

/** HTTP answers worth another try: the server or a proxy was briefly unable to answer. */
const TRANSIENT_STATUS = new Set([429, 500, 502, 503, 504]);

/** Node's and undici's codes of a failure to reach the server at all. */
const NETWORK_CODE = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EAI_AGAIN|UND_ERR_SOCKET)$/;

/** Whether an HTTP status is worth another try (429 and the 5xx of a briefly busy server). */
export function isTransientStatus(status: number): boolean {
	return TRANSIENT_STATUS.has(status);
}

/**
 * A failure to reach the server at all (refused, reset, DNS), as opposed to an answer: the
 * error's own `code`, the `cause.code` that fetch (undici) wraps it in, or node-fetch's
 * `type: 'system'`.
 */
function isNetworkError(err: unknown): boolean {
	const e = err as { code?: unknown; cause?: { code?: unknown }; type?: unknown } | null;
	if (e === null || typeof e !== 'object') return false;
	const codes = [e.code, e.cause?.code];
	return codes.some((c) => typeof c === 'string' && NETWORK_CODE.test(c)) || e.type === 'system';
}

/**
 * Whether a failed call is worth another try: a network failure (`code` or `cause.code`),
 * or an HTTP answer with a transient status (`statusCode`, or a numeric `code` as
 * KubeHttpError and client-node's ApiException carry).
 */
export function isTransient(err: unknown): boolean {
	if (isNetworkError(err)) return true;
	const e = err as { code?: unknown; statusCode?: unknown } | null;
	if (e === null || typeof e !== 'object') return false;
	const status = typeof e.statusCode === 'number' ? e.statusCode : e.code;
	return typeof status === 'number' && isTransientStatus(status);
}

/**
 * The pause (ms, jittered up to twice the base) before try `attempt + 1`, or undefined when
 * no try is left or the longest such pause would not end before `deadlineAt` (then the
 * answer in hand, a refused connection say, says more than a timeout would).
 */
export function retryPause(
	attempt: number,
	deadlineAt: number,
	now = Date.now(),
): number | undefined {
	const wait = RETRY_PAUSES_MS[attempt];
	if (wait === undefined || now + 2 * wait >= deadlineAt) return undefined;
	return wait + Math.random() * wait;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		if (signal?.aborted) return resolve();
		const done = () => {
			clearTimeout(timer);
			signal?.removeEventListener('abort', done);
			resolve();
		};
		const timer = setTimeout(done, ms);
		signal?.addEventListener('abort', done, { once: true });
	});
}

/** Resolves when `done` does (rejects as it does), or after at most `ms`. */
export async function waitAtMost(done: Promise<unknown>, ms: number): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	await Promise.race([
		done,
		new Promise<void>((resolve) => {
			timer = setTimeout(resolve, ms);
		}),
	]);
	clearTimeout(timer);
}
