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
	/**
	 * Called with the text of a 2xx answer before it is parsed (a list reads the next page's
	 * continue token from it, so that the server makes that page while this one is parsed);
	 * true when it made a request, which then leaves before the text is parsed.
	 */
	onText?: (text: string) => boolean;
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
			if (opts.onText?.(text)) await new Promise((resolve) => setImmediate(resolve));
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
 * The continue token a list page's text names before its items (a list's metadata comes
 * first: `{"kind":..,"metadata":{"resourceVersion":..,"continue":".."},"items":[`), read
 * without parsing the page; undefined when the head names none, or one with characters a
 * token of kube-apiserver's has not (base64 of JSON: nothing to unescape). Only a hint: what
 * the page says once parsed decides.
 */
export function leadingContinue(text: string): string | undefined {
	const head = text.slice(0, LIST_HEAD_CHARS);
	const items = head.indexOf('"items":');
	return /"continue":"([A-Za-z0-9+/=_.-]{1,4096})"/.exec(
		items < 0 ? head : head.slice(0, items),
	)?.[1];
}

/** How much of a list page's text leadingContinue looks at. */
const LIST_HEAD_CHARS = 8192;

/** How streamLines bounds a line: at most `maxChars` of it are kept, then `marker` is added. */
export interface LineLimit {
	maxChars: number;
	/** Added to a line that was cut ('' for none). */
	marker: string;
}

/**
 * A watch event is one object as JSON: kube-apiserver refuses objects over 3 MiB (etcd's
 * default request limit is 1.5 MiB), so a longer line is not one; it is cut, fails to parse
 * and is skipped.
 */
export const WATCH_LINE_LIMIT: LineLimit = { maxChars: 16 * 1024 * 1024, marker: '' };

/**
 * Keeps a line-split stream's memory bounded: a line longer than the limit is handed on cut
 * (its first maxChars, then the marker) as soon as the limit is passed, and the rest of it,
 * up to its newline, is dropped as it arrives.
 */
export class LineSplitter {
	private pending = '';
	/** Dropping the rest of a line that was cut. */
	private skipping = false;
	constructor(
		private readonly limit: LineLimit,
		private readonly onLine: (line: string) => void,
		/** Stops the splitting between two lines (the consumer is done). */
		private readonly stopped: () => boolean = () => false,
	) {}

	/** Feeds a chunk of text. */
	push(chunk: string): void {
		let start = 0;
		while (start <= chunk.length && !this.stopped()) {
			const nl = chunk.indexOf('\n', start);
			const end = nl < 0 ? chunk.length : nl;
			if (!this.skipping) {
				const room = this.limit.maxChars - this.pending.length;
				if (end - start > room) {
					this.onLine(untorn(this.pending + chunk.slice(start, start + room)) + this.limit.marker);
					this.pending = '';
					this.skipping = true;
				} else if (nl < 0) this.pending += chunk.slice(start);
				else {
					const line = this.pending
						? this.pending + chunk.slice(start, end)
						: chunk.slice(start, end);
					this.pending = '';
					if (line) this.onLine(line);
				}
			}
			if (nl < 0) return;
			this.skipping = false;
			start = nl + 1;
		}
	}

	/** Ends the stream: hands on a last line without its newline. */
	end(): void {
		const rest = this.pending;
		this.pending = '';
		if (rest.trim() && !this.stopped()) this.onLine(rest);
	}
}

/** s without a high surrogate torn from its pair at its end (where a line was cut). */
function untorn(s: string): string {
	const code = s.charCodeAt(s.length - 1);
	return code >= 0xd800 && code <= 0xdbff ? s.slice(0, -1) : s;
}

/**
 * GETs a streaming path and hands each line to onLine as it arrives; onOpen is called once
 * the server answered 200. Resolves when the server ends the stream, rejects on a non-200
 * answer (KubeHttpError with the body), a broken connection, or an abort through `signal`.
 * A line over `limit` is handed on cut (see LineSplitter): memory stays bounded whatever the
 * server sends.
 */
export async function streamLines(
	kc: KubeConfig,
	path: string,
	query: Query,
	signal: AbortSignal,
	onOpen: () => void,
	onLine: (line: string) => void,
	openTimeoutMs: number,
	limit: LineLimit = WATCH_LINE_LIMIT,
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
		let done = false;
		const lines = new LineSplitter(limit, onLine, () => done);
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
			if (!done) lines.push(chunk);
		});
		res.once('end', () => {
			lines.end();
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
