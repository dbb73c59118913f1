/**
 * Raw GET requests through the kubeconfig's auth (token, client certificate, exec plugin,
 * proxy): a JSON read with a deadline, and a line-by-line stream for watches. Answers stay
 * plain JSON: no model classes, no Dates, no second walk over big lists.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { requestAuth, userAgent } from './config.js';
import { KubeHttpError, KubeTimeoutError } from './errors.js';
import { isTransient, isTransientStatus, retryPause, sleep } from './retry.js';

/** Query parameters of a request; undefined values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** The URL of an API path on the current cluster of the kubeconfig. */
export function apiUrl(kc: KubeConfig, path: string, query: Query = {}): URL {
	const cluster = kc.getCurrentCluster();
	if (!cluster) throw new Error('the kubeconfig context names no cluster');
	const url = new URL(cluster.server.replace(/\/+$/, '') + path);
	for (const [k, v] of Object.entries(query))
		if (v !== undefined) url.searchParams.set(k, String(v));
	return url;
}

/**
 * Opens a request (a GET unless a JSON body is given, then a POST); resolves with the
 * response once its headers arrived.
 */
async function open(
	kc: KubeConfig,
	url: URL,
	signal: AbortSignal,
	body?: unknown,
): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
	// The kubeconfig's auth. GETs go through the kept-alive agent for lists and watches: no
	// cap (a watch holds its connection), and a list hands its connection on to the watch
	// after it. A POST goes through the capped agent of requests.
	const opts = await requestAuth(kc, body === undefined ? 'stream' : 'request');
	signal.throwIfAborted();
	const mod = url.protocol === 'https:' ? https : http;
	const payload = body === undefined ? undefined : JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = mod.request(url, {
			method: payload === undefined ? 'GET' : 'POST',
			agent: opts.agent,
			auth: opts.auth,
			headers: {
				...opts.headers,
				Accept: 'application/json',
				'User-Agent': userAgent(),
				...(payload === undefined
					? {}
					: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
			},
			signal,
		});
		req.once('response', (res) => resolve({ req, res }));
		req.on('error', reject);
		req.once('socket', (socket) => socket.setKeepAlive(true, 30_000));
		req.end(payload);
	});
}

/**
 * POSTs a JSON body (a review: SelfSubjectAccessReview, nothing that changes the cluster)
 * and parses the JSON answer; never retried. Non-2xx answers throw KubeHttpError, a passed
 * deadline KubeTimeoutError.
 */
export async function postJson<T = unknown>(
	kc: KubeConfig,
	path: string,
	body: unknown,
	timeoutMs: number,
): Promise<T> {
	const deadline = new AbortController();
	const timer = setTimeout(() => deadline.abort(), timeoutMs);
	try {
		const { res } = await open(kc, apiUrl(kc, path), deadline.signal, body);
		const text = await readAll(res);
		const code = res.statusCode ?? 0;
		if (code < 200 || code > 299) throw new KubeHttpError(code, text);
		return JSON.parse(text) as T;
	} catch (err) {
		if (deadline.signal.aborted) throw new KubeTimeoutError(timeoutMs, `POST ${path}`);
		throw err;
	} finally {
		clearTimeout(timer);
	}
}

function readAll(res: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		res.on('data', (c: Buffer) => chunks.push(c));
		res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		res.on('error', reject);
		res.on('aborted', () => reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
	});
}

/** Options of getJson. */
export interface GetJsonOptions {
	/**
	 * Try again after a 429 or 5xx answer or a failure to connect, like the API clients do
	 * (RETRY_PAUSES_MS, while the pause ends before the deadline).
	 */
	retry?: boolean;
}

/**
 * GETs a path and parses the JSON answer. Non-2xx answers throw KubeHttpError (with the
 * Status body), a passed deadline KubeTimeoutError, and an abort through `signal` its reason.
 */
export async function getJson<T = unknown>(
	kc: KubeConfig,
	path: string,
	query: Query,
	timeoutMs: number,
	signal?: AbortSignal,
	opts: GetJsonOptions = {},
): Promise<T> {
	const deadline = new AbortController();
	const timer = setTimeout(() => deadline.abort(), timeoutMs);
	const both = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
	const deadlineAt = Date.now() + timeoutMs;
	try {
		for (let attempt = 0; ; attempt++) {
			const wait = opts.retry ? retryPause(attempt, deadlineAt) : undefined;
			let code: number;
			let text: string;
			try {
				const { res } = await open(kc, apiUrl(kc, path, query), both);
				text = await readAll(res);
				code = res.statusCode ?? 0;
			} catch (err) {
				if (wait !== undefined && !both.aborted && isTransient(err)) {
					await sleep(wait, both);
					if (!both.aborted) continue;
				}
				throw err;
			}
			if (wait !== undefined && isTransientStatus(code)) {
				await sleep(wait, both);
				if (!both.aborted) continue;
			}
			if (code < 200 || code > 299) throw new KubeHttpError(code, text);
			return JSON.parse(text) as T;
		}
	} catch (err) {
		if (deadline.signal.aborted && !signal?.aborted)
			throw new KubeTimeoutError(timeoutMs, `GET ${path}`);
		throw err;
	} finally {
		clearTimeout(timer);
	}
}

/**
 * GETs a streaming path and hands each line to onLine as it arrives; onOpen is called once
 * the server answered 200. Resolves when the server ends the stream, rejects on a non-200
 * answer (KubeHttpError with the body), a broken connection, or an abort through `signal`.
 */
export async function streamLines(
	kc: KubeConfig,
	path: string,
	query: Query,
	signal: AbortSignal,
	onOpen: () => void,
	onLine: (line: string) => void,
	openTimeoutMs: number,
): Promise<void> {
	const deadline = new AbortController();
	const timer = setTimeout(() => deadline.abort(), openTimeoutMs);
	const both = AbortSignal.any([signal, deadline.signal]);
	let opened: { req: http.ClientRequest; res: http.IncomingMessage };
	try {
		opened = await open(kc, apiUrl(kc, path, query), both);
	} catch (err) {
		if (deadline.signal.aborted && !signal.aborted)
			throw new KubeTimeoutError(openTimeoutMs, `GET ${path}`);
		throw err;
	} finally {
		clearTimeout(timer);
	}
	const { res } = opened;
	const code = res.statusCode ?? 0;
	if (code !== 200) throw new KubeHttpError(code, await readAll(res));
	onOpen();
	return new Promise<void>((resolve, reject) => {
		let pending = '';
		let done = false;
		const finish = (err?: unknown) => {
			if (done) return;
			done = true;
			signal.removeEventListener('abort', onAbort);
			// Node's own abort handling may tear the response down first: report why we aborted.
			if (signal.aborted) reject(signal.reason ?? err);
			else if (err) reject(err);
			else resolve();
		};
		const onAbort = () => {
			res.destroy();
			finish(signal.reason ?? new Error('aborted'));
		};
		signal.addEventListener('abort', onAbort, { once: true });
		res.setEncoding('utf8');
		res.on('data', (chunk: string) => {
			if (done) return;
			let start = 0;
			let nl = chunk.indexOf('\n');
			if (nl < 0) {
				pending += chunk;
				return;
			}
			let text = chunk;
			if (pending) {
				text = pending + chunk;
				nl += pending.length;
				pending = '';
			}
			while (nl >= 0) {
				if (nl > start) onLine(text.slice(start, nl));
				if (done) return;
				start = nl + 1;
				nl = text.indexOf('\n', start);
			}
			pending = text.slice(start);
		});
		res.once('end', () => {
			if (pending.trim()) onLine(pending);
			pending = '';
			finish();
		});
		res.once('aborted', () =>
			finish(Object.assign(new Error('the watch connection was cut'), { code: 'ECONNRESET' })),
		);
		res.on('error', (err) => finish(err));
		res.once('close', () => {
			if (!res.complete)
				finish(Object.assign(new Error('the watch connection was cut'), { code: 'ECONNRESET' }));
			else finish();
		});
	});
}
