/**
 * A tap between one ctpool process and the simulated cluster: a small HTTP proxy on
 * 127.0.0.1 that forwards every request unchanged, counts reconciles, tells when the
 * process took a reconciler Lease (so that it can be killed mid-step), and can cut a
 * request off on its way (the process is killed before the request reaches the cluster)
 * or answer one request with a 5xx (an exact, repeatable fault for tests).
 */

import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { RECONCILER_IDENTITY } from '../source/pool/errors.js';
import { configMapName, memberOfLease } from '../source/pool/names.js';

/** What the tap tells its owner. */
export interface TapHooks {
	/**
	 * Called for each request before it is forwarded. Return false to cut it off (it never
	 * reaches the cluster and its connection is destroyed), or an HTTP status (500, 503) to
	 * answer it with that error instead of the cluster.
	 */
	beforeRequest?(method: string, path: string): boolean | number;
	/** The process took a member's Lease as the reconciler (create or takeover accepted). */
	onReconcilerLease?(member: string): void;
	/**
	 * Called once a request's body has arrived, before it is forwarded: a promise returned
	 * holds the request back until it settles (to order two clients' requests in a test).
	 */
	hold?(method: string, path: string): Promise<void> | undefined;
}

/** What went through the tap. */
export interface TapCounts {
	requests: number;
	/** Reads of the pool definition: one at the start of every reconcile. */
	reconciles: number;
	/** Reconciler Leases taken (created or taken over). */
	leasesTaken: number;
	/** Requests cut off or answered with an error on purpose. */
	cut: number;
	/** Requests the cluster did not answer (connection refused or dropped). */
	upstreamErrors: number;
}

/** A real cluster's API server behind a tap: HTTPS, with the cluster's CA. */
export interface TlsUpstream {
	host: string;
	port: number;
	/** The cluster's CA (PEM). */
	ca: string | Buffer;
}

const LEASES = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/[^/]+\/leases(?:\/([^/?]+))?$/;

/** The HTTP tap of one reconciler process. */
export class ReconcilerTap {
	/** What went through so far. */
	readonly counts: TapCounts = {
		requests: 0,
		reconciles: 0,
		leasesTaken: 0,
		cut: 0,
		upstreamErrors: 0,
	};
	private readonly server: http.Server;
	private readonly agent: http.Agent;
	private readonly sockets = new Set<Socket>();
	private readonly definitionPath: string;
	hooks: TapHooks = {};

	private readonly upstreamPort: number;

	/** `upstream`: the simulated cluster's plain-HTTP port on 127.0.0.1, or a real API server. */
	constructor(
		private readonly upstream: number | TlsUpstream,
		pool: string,
		namespace: string,
	) {
		this.upstreamPort = typeof upstream === 'number' ? upstream : upstream.port;
		this.agent =
			typeof upstream === 'number'
				? new http.Agent({ keepAlive: true })
				: new https.Agent({ keepAlive: true, ca: upstream.ca });
		this.definitionPath = `/api/v1/namespaces/${namespace}/configmaps/${configMapName(pool)}`;
		this.server = http.createServer((req, res) => this.forward(req, res));
		this.server.on('connection', (s) => {
			this.sockets.add(s);
			s.once('close', () => this.sockets.delete(s));
		});
	}

	/** Listens on a free port of 127.0.0.1; resolves with it. */
	listen(): Promise<number> {
		return new Promise((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(0, '127.0.0.1', () =>
				resolve((this.server.address() as AddressInfo).port),
			);
		});
	}

	/** Closes the tap and every connection through it. */
	close(): Promise<void> {
		for (const s of this.sockets) s.destroy();
		this.agent.destroy();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}

	private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
		this.counts.requests++;
		const method = req.method ?? 'GET';
		const path = req.url ?? '/';
		const bare = path.split('?', 1)[0] ?? '';
		if (method === 'GET' && bare === this.definitionPath) this.counts.reconciles++;
		const verdict = this.hooks.beforeRequest ? this.hooks.beforeRequest(method, path) : true;
		if (verdict === false) {
			this.counts.cut++;
			req.socket.destroy();
			return;
		}
		if (typeof verdict === 'number') {
			this.counts.cut++;
			req.resume();
			const status = {
				kind: 'Status',
				apiVersion: 'v1',
				metadata: {},
				status: 'Failure',
				message:
					verdict === 503
						? 'the server is currently unable to handle the request'
						: 'Internal error occurred: injected by the tap',
				reason: verdict === 503 ? 'ServiceUnavailable' : 'InternalError',
				code: verdict,
			};
			res.writeHead(verdict, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify(status));
			return;
		}
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('error', () => res.destroy());
		req.on('end', () => {
			const held = this.hooks.hold?.(method, path);
			if (held) held.then(go, go);
			else go();
		});
		const go = () => {
			const body = Buffer.concat(chunks);
			const leaseMatch = LEASES.exec(bare);
			const leaseWrite =
				leaseMatch !== null &&
				(method === 'POST' || method === 'PUT') &&
				body.includes(`"holderIdentity":"${RECONCILER_IDENTITY}"`);
			const tls = typeof this.upstream === 'number' ? null : this.upstream;
			const upstream = (tls ? https : http).request(
				{
					host: tls ? tls.host : '127.0.0.1',
					port: this.upstreamPort,
					method,
					path,
					headers: tls ? { ...req.headers, host: `${tls.host}:${tls.port}` } : req.headers,
					agent: this.agent,
				},
				(up) => {
					const code = up.statusCode ?? 502;
					if (leaseWrite && (code === 201 || code === 200)) {
						const member = this.leaseMember(body, leaseMatch?.[1]);
						if (member) {
							this.counts.leasesTaken++;
							this.hooks.onReconcilerLease?.(member);
						}
					}
					res.writeHead(code, up.headers);
					up.pipe(res);
					up.on('aborted', () => res.destroy());
					up.on('error', () => res.destroy());
					up.on('close', () => {
						if (!up.complete) res.destroy();
					});
				},
			);
			upstream.on('error', () => {
				this.counts.upstreamErrors++;
				res.destroy();
				req.socket.destroy();
			});
			// The reconciler went away (killed, or a watch it stopped): stop the upstream too.
			res.on('close', () => {
				if (!res.writableFinished) upstream.destroy();
			});
			upstream.end(body);
		};
	}

	private leaseMember(body: Buffer, fromPath: string | undefined): string | null {
		let name = fromPath;
		if (!name) {
			try {
				name = (JSON.parse(body.toString('utf8')) as { metadata?: { name?: string } }).metadata
					?.name;
			} catch {
				return null;
			}
		}
		return name ? memberOfLease(name) : null;
	}
}
