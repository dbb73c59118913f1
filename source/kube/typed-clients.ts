/**
 * client-node's typed API clients (CoreV1Api, CoordinationV1Api, AuthorizationV1Api) over
 * the shared kept-alive agents, each call with a deadline, retries of safe methods and
 * ctpool's User-Agent. Its own module, loaded on the first call of a client (see
 * lazyClients in config.ts): the generated APIs and models are most of client-node's code.
 */

import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import {
	AuthorizationV1Api,
	CoordinationV1Api,
	CoreV1Api,
	createConfiguration,
	type KubeConfig,
	type RequestContext,
	ResponseContext,
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
 * Sends one request over node:http and resolves once its whole answer is read (gzip undone).
 * client-node's own library (node-fetch 2) is not used: on a kept-alive connection it fails a
 * chunked answer (kube-apiserver chunks every answer past 2 KiB) with "Premature close" when
 * the connection is handed to the next request before the body was read.
 */
function sendOnce(request: RequestContext): Promise<ResponseContext> {
	const url = new URL(request.getUrl());
	const body = request.getBody();
	const payload = body === undefined ? undefined : String(body);
	const mod = url.protocol === 'https:' ? https : http;
	return new Promise((resolve, reject) => {
		const req = mod.request(url, {
			method: String(request.getHttpMethod()),
			headers: {
				'Accept-Encoding': 'gzip',
				...request.getHeaders(),
				...(payload === undefined ? {} : { 'Content-Length': Buffer.byteLength(payload) }),
			},
			agent: request.getAgent() as http.Agent | undefined,
			signal: request.getSignal(),
		});
		req.on('error', reject);
		req.on('response', (res) => {
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(res.headers))
				if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
			const gzip = /^\s*(x-)?gzip\s*$/i.test(headers['content-encoding'] ?? '');
			const stream = gzip ? res.pipe(zlib.createGunzip()) : res;
			if (gzip) res.on('error', (err) => stream.destroy(err));
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.on('error', reject);
			stream.on('end', () => {
				if (!res.complete)
					return reject(
						Object.assign(new Error('the connection closed before the answer was complete'), {
							code: 'ECONNRESET',
						}),
					);
				const bytes = Buffer.concat(chunks);
				resolve(
					new ResponseContext(res.statusCode ?? 0, headers, {
						text: async () => bytes.toString('utf8'),
						binary: async () => bytes,
					}),
				);
			});
		});
		req.end(payload);
	});
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
					response = await sendOnce(request);
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
