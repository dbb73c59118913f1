/**
 * The HTTP face of the simulated cluster: it listens (HTTP and HTTPS on one port), checks the
 * bearer token, injects faults, and dispatches each request to its part: discovery
 * (routing.ts), reads (reads.ts, watch.ts), writes (writes.ts), pod logs (pod-log.ts),
 * authorisation and SelfSubjectAccessReview (access-review.ts) and exec (exec.ts).
 */

import {
	createServer,
	type IncomingMessage,
	type Server,
	type ServerResponse,
	STATUS_CODES,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { AccessControl } from './access-control.js';
import { authorise, authoriseExec, REVIEWS } from './access-review.js';
import type { AuditLog } from './audit.js';
import { whoFromUserAgent } from './audit.js';
import { Authenticator } from './authn.js';
import { selfSignedCertificate } from './cert.js';
import type { SimClusterConfig } from './config.js';
import { ContainerLogs } from './container-logs.js';
import {
	badRequest,
	internalError,
	isSimApiError,
	methodNotAllowed,
	pathNotFound,
	serviceUnavailable,
} from './errors.js';
import { evict } from './eviction.js';
import { type ExecContext, execPreflight, execUpgrade } from './exec.js';
import type { FaultSwitch } from './faults.js';
import { fail, send, sendError, sendObj } from './http-io.js';
import { podLog } from './pod-log.js';
import { queryBool } from './query.js';
import type { UserInfo } from './rbac.js';
import { get, list } from './reads.js';
import {
	apiRoute,
	discoveryDocument,
	NOT_SERVED,
	parseAccept,
	type Route,
	resourceRoute,
	verbOf,
} from './routing.js';
import type { ServerContext, WatchStream } from './server-context.js';
import type { Store } from './store.js';
import type { SimApiError } from './store-api.js';
import { tokenRequest } from './token-request.js';
import { watch } from './watch.js';
import { create, patch, remove, removeCollection, update } from './writes.js';

export { deniedBy } from './access-review.js';

/** How often a watch that allows bookmarks gets one by default: about once a minute, as the watch cache. */
export const DEFAULT_BOOKMARK_MS = 60_000;

/** Settings of the HTTP server. */
export interface SimServerOptions {
	store: Store;
	config: SimClusterConfig;
	/** The bearer token every request must carry. */
	token: string;
	faults: FaultSwitch;
	audit: AuditLog;
	/** Who tokens belong to (default: one knowing only `token`, the admin's). */
	authenticator?: Authenticator;
	/** How often a watch that allows bookmarks gets one (default 60,000 ms, as a real server). */
	bookmarkIntervalMs?: number;
	/** The containers' logs the kubelet writes (default: an empty set nobody writes to). */
	logs?: ContainerLogs;
}

function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

function execContext(ctx: ServerContext, route: Route, q: URLSearchParams): ExecContext {
	return {
		store: ctx.store,
		config: ctx.config,
		namespace: route.namespace ?? 'default',
		pod: route.name ?? '',
		query: q,
	};
}

/** The simulated API server. */
export class SimServer {
	/** The plain HTTP server. */
	private readonly http: Server;
	/** The HTTPS server (self-signed; kubectl sends credentials only over TLS). */
	private readonly https: Server;
	/** The serving certificate (PEM), which clients in pods get as kube-root-ca.crt. */
	readonly caCertificate: string;
	/** The listening socket: it hands each connection to the HTTP or the HTTPS server. */
	private readonly net: NetServer;
	private readonly ctx: ServerContext;
	private readonly sockets = new Set<Socket | Duplex>();
	private readonly watches = new Set<WatchStream>();
	private port = 0;
	private closed = false;

	constructor(opts: SimServerOptions) {
		const authenticator =
			opts.authenticator ?? new Authenticator({ adminToken: opts.token, store: opts.store });
		this.ctx = {
			store: opts.store,
			config: opts.config,
			audit: opts.audit,
			faults: opts.faults,
			access: new AccessControl({
				authenticator,
				// Read-only views of the stored objects: no copy per request.
				rbac: {
					list: (resource, o) => opts.store.listEntries(resource, o).map((e) => e.obj),
					get: (resource, ns, name) => opts.store.getEntry(resource, ns, name)?.obj,
				},
				deny: () => opts.config.deny,
			}),
			bookmarkMs: opts.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_MS,
			logs: opts.logs ?? new ContainerLogs(),
			watches: this.watches,
			port: () => this.port,
		};
		const handler = (req: IncomingMessage, res: ServerResponse) => {
			this.handle(req, res).catch((err) => fail(res, err));
		};
		const tls = selfSignedCertificate();
		this.caCertificate = tls.cert;
		this.http = createServer({ keepAliveTimeout: 30_000 }, handler);
		this.https = createHttpsServer({ keepAliveTimeout: 30_000, ...tls }, handler);
		for (const srv of [this.http, this.https]) {
			srv.on('upgrade', (req, socket, head) => this.handleUpgrade(req, socket, head));
			srv.on('clientError', (_err, socket) => socket.destroy());
		}
		// One port, both protocols: a TLS handshake starts with 0x16.
		this.net = createNetServer({ noDelay: true }, (socket) => {
			if (this.closed || this.ctx.faults.refuseConnection()) {
				socket.destroy();
				return;
			}
			this.sockets.add(socket);
			socket.once('close', () => this.sockets.delete(socket));
			socket.on('error', () => socket.destroy());
			socket.once('data', (first: Buffer) => {
				socket.pause();
				socket.unshift(first);
				(first[0] === 0x16 ? this.https : this.http).emit('connection', socket);
				process.nextTick(() => socket.resume());
			});
		});
		this.ctx.faults.attach({
			dropWatches: () => this.dropWatches(),
			dropConnections: () => this.dropConnections(),
		});
	}

	/** Listens on 127.0.0.1 (port 0 = a random free port); resolves with the port. */
	listen(port = 0): Promise<number> {
		return new Promise((resolve, reject) => {
			this.net.once('error', reject);
			this.net.listen(port, '127.0.0.1', () => {
				this.net.off('error', reject);
				const addr = this.net.address();
				this.port = typeof addr === 'object' && addr ? addr.port : port;
				resolve(this.port);
			});
		});
	}

	/** How many watch streams are open. */
	openWatches(): number {
		return this.watches.size;
	}

	/** Ends every open watch abruptly (the socket is destroyed). Returns how many. */
	dropWatches(): number {
		const all = [...this.watches];
		for (const w of all) w.end(true);
		return all.length;
	}

	private dropConnections(): number {
		const all = [...this.sockets];
		for (const w of [...this.watches]) w.end(true);
		for (const s of all) s.destroy();
		return all.length;
	}

	/** Ends every watch and connection and stops listening. */
	close(): Promise<void> {
		this.closed = true;
		for (const w of [...this.watches]) w.end(false);
		return new Promise((resolve) => {
			this.net.close(() => resolve());
			this.http.closeAllConnections();
			this.https.closeAllConnections();
			for (const s of [...this.sockets]) s.destroy();
		});
	}

	// ---- requests ----------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const ctx = this.ctx;
		const url = new URL(req.url ?? '/', 'http://localhost');
		const path = url.pathname.replace(/\/+$/, '') || '/';
		const q = url.searchParams;
		const method = req.method ?? 'GET';
		const who = whoFromUserAgent(req.headers['user-agent']);
		const parts = path.split('/').filter(Boolean);

		if (/^\/(healthz|livez|readyz)(\/.*)?$/.test(path)) {
			send(res, 200, 'ok', 'text/plain; charset=utf-8');
			return;
		}
		const reqLog = { method, verb: 'other', path, who, code: 0 } as Parameters<
			AuditLog['recordRequest']
		>[0];
		let recorded = false;
		const record = () => {
			if (recorded) return;
			recorded = true;
			reqLog.code = res.statusCode;
			ctx.audit.recordRequest(reqLog);
		};
		res.once('close', record);
		let user: UserInfo;
		try {
			user = ctx.access.identify(req.headers);
		} catch (err) {
			fail(res, err);
			return;
		}

		const api = apiRoute(parts);
		const route = api && api.rest.length > 0 ? resourceRoute(api.gv, api.rest) : undefined;
		const isWatch =
			method === 'GET' && route !== undefined && route.sub === undefined && queryBool(q, 'watch');
		if (route) {
			reqLog.resource = route.info.name;
			if (route.namespace) reqLog.namespace = route.namespace;
			if (route.name) reqLog.name = route.name;
			if (route.sub) reqLog.subresource = route.sub;
		}

		const delay = ctx.faults.latency();
		if (delay > 0) await sleep(delay);
		if (!isWatch) {
			const code = ctx.faults.failure();
			if (code === 500) {
				sendError(res, internalError('injected fault'));
				return;
			}
			if (code === 503) {
				sendError(res, serviceUnavailable());
				return;
			}
		}

		// discovery and documents
		if (method === 'GET' && !route) {
			reqLog.verb = 'discovery';
			const doc = discoveryDocument(path, parts, this.port);
			if (doc !== undefined) {
				ctx.access.check(user, { verb: 'get', resourceRequest: false, path });
				sendObj(res, 200, doc);
				return;
			}
		}
		const review = method === 'POST' ? REVIEWS[path] : undefined;
		if (review) {
			reqLog.verb = 'create';
			reqLog.resource = review.resource;
			ctx.access.check(user, {
				verb: 'create',
				resourceRequest: true,
				apiGroup: review.group,
				resource: review.resource,
			});
			await review.handle(ctx, user, req, res);
			return;
		}
		if (!route) {
			sendError(res, pathNotFound());
			return;
		}

		if (route.sub && NOT_SERVED.has(route.sub)) {
			sendError(res, pathNotFound());
			return;
		}
		const verb = verbOf(method, route, isWatch);
		reqLog.verb = verb ?? 'other';
		if (!verb) {
			sendError(res, methodNotAllowed());
			return;
		}
		if (route.sub === 'exec') authoriseExec(ctx, user, route);
		else authorise(ctx, user, verb, route, q.get('fieldSelector'));
		const fmt = parseAccept(req.headers.accept);
		if (route.sub === 'eviction' && route.info.name === 'pods' && route.name && method === 'POST') {
			await evict(ctx, req, res, route, q, who);
			return;
		}
		if (
			route.sub === 'token' &&
			route.info.name === 'serviceaccounts' &&
			route.name &&
			method === 'POST'
		) {
			await tokenRequest(ctx, req, res, route, q);
			return;
		}
		if (route.sub === 'exec') {
			if (route.info.name !== 'pods' || !route.name) throw pathNotFound();
			const err = execPreflight(execContext(ctx, route, q));
			sendError(res, err ?? badRequest('Upgrade request required'));
			return;
		}
		if (route.sub === 'log') {
			podLog(ctx, res, route, q);
			return;
		}
		if (
			route.sub &&
			!(route.sub === 'status' || (route.sub === 'finalize' && route.info.name === 'namespaces'))
		) {
			throw pathNotFound();
		}
		if (route.sub === 'status' && !route.info.statusSubresource) throw pathNotFound();
		switch (verb) {
			case 'watch':
				watch(ctx, res, route, q, fmt, record);
				return;
			case 'list':
				list(ctx, res, route, q, fmt);
				return;
			case 'get':
				get(ctx, res, route, q, fmt);
				return;
			case 'create':
				await create(ctx, req, res, route, q, who);
				return;
			case 'update':
				await update(ctx, req, res, route, q, who);
				return;
			case 'patch':
				await patch(ctx, req, res, route, q, who);
				return;
			case 'delete':
				await remove(ctx, req, res, route, q, who);
				return;
			case 'deletecollection':
				await removeCollection(ctx, req, res, route, q, who);
				return;
		}
		sendError(res, methodNotAllowed());
	}

	// ---- exec upgrade ------------------------------------------------------------------

	private rawError(socket: Duplex, err: SimApiError): void {
		const body = JSON.stringify(err.status);
		socket.end(
			`HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
		);
	}

	private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
		if (this.closed) {
			socket.destroy();
			return;
		}
		this.sockets.add(socket);
		socket.once('close', () => this.sockets.delete(socket));
		socket.on('error', () => socket.destroy());
		const url = new URL(req.url ?? '/', 'http://localhost');
		const who = whoFromUserAgent(req.headers['user-agent']);
		const reqLog = {
			method: req.method ?? 'GET',
			verb: 'exec',
			path: url.pathname,
			who,
			code: 101,
		} as Parameters<AuditLog['recordRequest']>[0];
		try {
			const user = this.ctx.access.identify(req.headers);
			const parts = url.pathname.split('/').filter(Boolean);
			const api = apiRoute(parts);
			const route = api ? resourceRoute(api.gv, api.rest) : undefined;
			// Only exec upgrades; attach and portforward are not served (see NOT_SERVED).
			if (route?.info.name !== 'pods' || !route.name || route.sub !== 'exec') {
				throw pathNotFound();
			}
			reqLog.resource = 'pods';
			reqLog.subresource = route.sub;
			reqLog.namespace = route.namespace;
			reqLog.name = route.name;
			authoriseExec(this.ctx, user, route);
			const ctx = execContext(this.ctx, route, url.searchParams);
			const pre = execPreflight(ctx);
			if (pre) throw pre;
			const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
			if (upgrade !== 'websocket') {
				throw badRequest(
					'the simulated cluster serves exec over WebSocket (v5.channel.k8s.io) only; SPDY is not supported',
				);
			}
			this.ctx.audit.recordRequest(reqLog);
			execUpgrade(req, socket, head, ctx);
		} catch (err) {
			const e = isSimApiError(err) ? err : internalError(String(err));
			reqLog.code = e.code;
			this.ctx.audit.recordRequest(reqLog);
			this.rawError(socket, e);
		}
	}
}
