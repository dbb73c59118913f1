/**
 * A small keep-alive JSON client for the benchmark's own traffic to the simulated cluster
 * (setting up pools, churn, raw baselines): plain node http/https, a bearer token, and a
 * User-Agent that the sim's audit log tells apart from ctpool and kubectl.
 */

import http from 'node:http';
import https from 'node:https';

/** What an API call answered. */
export interface ApiAnswer {
	code: number;
	text: string;
}

/** Options of an ApiClient. */
export interface ApiClientOptions {
	/** The User-Agent's product token (the sim's audit log names it as `who`). */
	agentName?: string;
	/** Connections kept open to the server (default 32). */
	maxSockets?: number;
	/** Per request deadline (ms, default 60 000). */
	timeoutMs?: number;
}

/** A non-2xx answer. */
export class ApiError extends Error {
	constructor(
		readonly code: number,
		readonly text: string,
		what: string,
	) {
		super(`${what}: HTTP ${code}: ${text.slice(0, 300)}`);
	}
}

/** A JSON client over one keep-alive agent. */
export class ApiClient {
	private readonly agent: http.Agent;
	private readonly base: URL;
	private readonly userAgent: string;
	private readonly timeoutMs: number;

	constructor(
		server: string,
		private readonly token: string,
		opts: ApiClientOptions = {},
	) {
		this.base = new URL(server);
		const Agent = this.base.protocol === 'https:' ? https.Agent : http.Agent;
		this.agent = new Agent({
			keepAlive: true,
			maxSockets: opts.maxSockets ?? 32,
			...(this.base.protocol === 'https:' ? { rejectUnauthorized: false } : {}),
		});
		this.userAgent = `${opts.agentName ?? 'ctpool-bench'}/0.1`;
		this.timeoutMs = opts.timeoutMs ?? 60_000;
	}

	/** Sends one request; resolves with the code and body text whatever the code. */
	request(
		method: string,
		path: string,
		body?: unknown,
		contentType = 'application/json',
	): Promise<ApiAnswer> {
		const mod = this.base.protocol === 'https:' ? https : http;
		const payload = body === undefined ? undefined : JSON.stringify(body);
		return new Promise((resolve, reject) => {
			const req = mod.request(
				new URL(path, this.base),
				{
					method,
					agent: this.agent,
					timeout: this.timeoutMs,
					headers: {
						Authorization: `Bearer ${this.token}`,
						Accept: 'application/json',
						'User-Agent': this.userAgent,
						...(payload !== undefined
							? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }
							: {}),
					},
				},
				(res) => {
					const chunks: Buffer[] = [];
					res.on('data', (c: Buffer) => chunks.push(c));
					res.on('end', () =>
						resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
					);
					res.on('error', reject);
				},
			);
			req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
			req.on('error', reject);
			req.end(payload);
		});
	}

	/** Sends one request and parses the JSON answer; a non-2xx answer throws ApiError. */
	async json<T = unknown>(
		method: string,
		path: string,
		body?: unknown,
		contentType?: string,
	): Promise<T> {
		const a = await this.request(method, path, body, contentType);
		if (a.code < 200 || a.code > 299) throw new ApiError(a.code, a.text, `${method} ${path}`);
		return JSON.parse(a.text) as T;
	}

	/** Closes the kept-alive connections. */
	close(): void {
		this.agent.destroy();
	}
}

/** Runs fn over items with at most `limit` at a time; resolves with the results in order. */
export async function mapLimit<T, R>(
	items: readonly T[],
	limit: number,
	fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
	const out = new Array<R>(items.length);
	let next = 0;
	const worker = async () => {
		for (;;) {
			const i = next++;
			if (i >= items.length) return;
			out[i] = await fn(items[i]!, i);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return out;
}
