/**
 * client-node's typed API clients (CoreV1Api, CoordinationV1Api, AuthorizationV1Api) over
 * the shared kept-alive agents, each call with a deadline, retries of safe methods and
 * ctpool's User-Agent. Its own module, loaded on the first call of a client (see
 * lazyClients in config.ts): the generated APIs and models are most of client-node's code.
 */

import {
	AuthorizationV1Api,
	CoordinationV1Api,
	CoreV1Api,
	createConfiguration,
	IsomorphicFetchHttpLibrary,
	type KubeConfig,
	type RequestContext,
	type ResponseContext,
	type SecurityAuthentication,
	ServerConfiguration,
	wrapHttpLibrary,
} from '@kubernetes/client-node';
import { PoolError } from '../pool/errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, requestAuth, type TypedClients, userAgent } from './config.js';
import { KubeTimeoutError } from './errors.js';
import { isTransient, isTransientStatus, retryPause, sleep } from './retry.js';

/** client-node's kubeconfig authentication, through the shared kept-alive agent. */
function sharedAgentAuthentication(kc: KubeConfig): SecurityAuthentication {
	return {
		getName: () => 'kubeconfig authentication',
		async applySecurityAuthentication(context: RequestContext): Promise<void> {
			const { headers, auth, agent } = await requestAuth(kc);
			if (auth)
				context.setHeaderParam('Authorization', `Basic ${Buffer.from(auth).toString('base64')}`);
			for (const [k, v] of Object.entries(headers)) context.setHeaderParam(k, v);
			context.setAgent(agent);
		},
	};
}

/**
 * Methods that are safe to send again. A GET reads; a DELETE that went through answers 404
 * the second time; a merge PATCH sets the same fields again. A POST (the atomic create of a
 * claim) and a PUT (a compare-and-swap) are never repeated: their first answer decides.
 */
const RETRIED_METHODS = new Set(['GET', 'DELETE', 'PATCH']);

/**
 * An http library that gives every request a deadline (the whole answer, body included,
 * retries too) and ctpool's User-Agent; a passed deadline becomes a KubeTimeoutError. GET,
 * DELETE and PATCH are tried again, up to three more times, after a 429 or 5xx answer or a
 * failure to connect: one blip of the API server costs a retry, not a step.
 */
function deadlineHttpApi(timeoutMs: number, agentName: string) {
	const inner = new IsomorphicFetchHttpLibrary();
	return wrapHttpLibrary({
		async send(request: RequestContext): Promise<ResponseContext> {
			request.setHeaderParam('User-Agent', agentName);
			const deadline = new AbortController();
			// Unref'd: a forgotten body never keeps the process alive; cleared once read.
			const timer = setTimeout(() => deadline.abort(), timeoutMs);
			timer.unref();
			const own = request.getSignal();
			const signal = own ? AbortSignal.any([own, deadline.signal]) : deadline.signal;
			request.setSignal(signal);
			const what = `${request.getHttpMethod()} ${new URL(request.getUrl()).pathname}`;
			const retried = RETRIED_METHODS.has(String(request.getHttpMethod()).toUpperCase());
			const mapError = (err: unknown): never => {
				clearTimeout(timer);
				if (deadline.signal.aborted && !own?.aborted) throw new KubeTimeoutError(timeoutMs, what);
				throw err;
			};
			const done = <T>(value: T): T => {
				clearTimeout(timer);
				return value;
			};
			const deadlineAt = Date.now() + timeoutMs;
			for (let attempt = 0; ; attempt++) {
				// Only while a pause (jitter included) still ends before the deadline: otherwise the
				// answer in hand, a refused connection say, says more than a timeout would.
				const wait = retried ? retryPause(attempt, deadlineAt) : undefined;
				let response: ResponseContext;
				try {
					response = await inner.send(request).toPromise();
				} catch (err) {
					if (wait !== undefined && !signal.aborted && isTransient(err)) {
						await sleep(wait, signal);
						if (!signal.aborted) continue;
					}
					return mapError(err);
				}
				if (wait !== undefined && isTransientStatus(response.httpStatusCode)) {
					await response.body.text().catch(() => '');
					await sleep(wait, signal);
					if (!signal.aborted) continue;
					return mapError(new KubeTimeoutError(timeoutMs, what));
				}
				const body = response.body;
				response.body = {
					text: () => body.text().then(done, mapError),
					binary: () => body.binary().then(done, mapError),
				};
				return response;
			}
		},
	});
}

/** Makes an API client of the current context whose calls have a deadline and a User-Agent. */
export function makeClient<T>(
	kc: KubeConfig,
	api: new (config: ReturnType<typeof createConfiguration>) => T,
	timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
): T {
	const cluster = kc.getCurrentCluster();
	if (!cluster) throw new PoolError('usage', 'the kubeconfig context names no cluster');
	const configuration = createConfiguration({
		baseServer: new ServerConfiguration(cluster.server, {}),
		authMethods: { default: sharedAgentAuthentication(kc) },
		httpApi: deadlineHttpApi(timeoutMs, userAgent()),
	});
	return new api(configuration);
}

/** The three typed clients of the current context of a kubeconfig. */
export function makeTypedClients(kc: KubeConfig, timeoutMs: number): TypedClients {
	return {
		core: makeClient(kc, CoreV1Api, timeoutMs),
		coordination: makeClient(kc, CoordinationV1Api, timeoutMs),
		authorization: makeClient(kc, AuthorizationV1Api, timeoutMs),
	};
}
