/**
 * The HTTP face of the simulated cluster: a generic Kubernetes API server over the store
 * (discovery, OpenAPI, REST, list/watch, tables, patches, authorisation, exec routing).
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
import type { AuditLog } from './audit.js';
import { whoFromUserAgent } from './audit.js';
import { selfSignedCertificate } from './cert.js';
import type { SimClusterConfig } from './config.js';
import { initialStatus } from './defaults.js';
import {
	apiGroupDoc,
	apiGroupList,
	apiResourceList,
	apiVersions,
	openApiV3Doc,
	openApiV3Index,
	SIM_VERSION,
} from './discovery.js';
import {
	badRequest,
	expired,
	forbidden,
	internalError,
	invalid,
	isSimApiError,
	methodNotAllowed,
	notFound,
	pathNotFound,
	SimError,
	serviceUnavailable,
	unauthorized,
	unsupportedMediaType,
} from './errors.js';
import { type ExecContext, execPreflight, execUpgrade } from './exec.js';
import type { FaultSwitch } from './faults.js';
import { checkImmutable } from './immutable.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from './patch.js';
import { decodeSelfSubjectAccessReview, PROTOBUF } from './protobuf.js';
import { apiVersionOf, RESOURCES, type ResourceInfo } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { Store, StoredEntry, WatchDelivery } from './store.js';
import type { DeleteOptions, ListOptions, SimApiError, SimObject } from './store-api.js';
import { type IncludeObject, rowJson, tableJson } from './tables.js';

/** Settings of the HTTP server. */
export interface SimServerOptions {
	store: Store;
	config: SimClusterConfig;
	/** The bearer token every request must carry. */
	token: string;
	faults: FaultSwitch;
	audit: AuditLog;
	/** The user name RBAC messages name (default `ctpool-sim`). */
	user?: string;
	/** How often a watch that allows bookmarks gets one (default 5,000 ms). */
	bookmarkIntervalMs?: number;
}

/** How a response body is shaped, from the Accept header. */
type Format =
	| { as: 'json' }
	| { as: 'table'; version: string }
	| { as: 'partial'; version: string };

/** A request routed to a resource. */
interface Route {
	info: ResourceInfo;
	namespace?: string;
	name?: string;
	sub?: string;
}

interface WatchStream {
	res: ServerResponse;
	end(abrupt: boolean): void;
}

/** Resources whose PUT creates a missing object (AllowCreateOnUpdate). */
const CREATE_ON_UPDATE = new Set(['leases', 'events', 'services']);
/** Resources whose DELETE answers with the object rather than a Status. */
const RETURNS_OBJECT = new Set(['pods', 'persistentvolumeclaims', 'namespaces']);
/** A watch whose client does not read is ended past this much buffered output. */
const MAX_WATCH_BUFFER = 32 * 1024 * 1024;
const MAX_BODY = 8 * 1024 * 1024;

function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

function parseAccept(accept: string | undefined): Format {
	if (!accept) return { as: 'json' };
	for (const part of accept.split(',')) {
		const [type = '', ...params] = part.split(';').map((s) => s.trim());
		const p = new Map(
			params.map((kv) => {
				const i = kv.indexOf('=');
				return [kv.slice(0, i).trim(), kv.slice(i + 1).trim()] as [string, string];
			}),
		);
		if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
		const as = p.get('as');
		if (!as) return { as: 'json' };
		const g = p.get('g');
		if (g !== undefined && g !== 'meta.k8s.io') continue;
		const v = p.get('v') ?? 'v1';
		if (v !== 'v1' && v !== 'v1beta1') continue;
		if (as === 'Table') return { as: 'table', version: v };
		if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
			return { as: 'partial', version: v };
		}
	}
	return { as: 'json' };
}

function contentTypeOf(f: Format): string {
	if (f.as === 'table') return `application/json;as=Table;v=${f.version};g=meta.k8s.io`;
	if (f.as === 'partial')
		return `application/json;as=PartialObjectMetadataList;v=${f.version};g=meta.k8s.io`;
	return 'application/json';
}

function encodeContinue(rv: number, start: string): string {
	return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
	try {
		const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
			v?: string;
			rv?: number;
			start?: string;
		};
		if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') {
			throw new Error('bad token');
		}
		return { rv: t.rv, start: t.start };
	} catch {
		throw badRequest(
			'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
		);
	}
}

function keyOf(obj: SimObject): string {
	return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

function parseBool(v: string | null): boolean {
	return v === 'true' || v === '1';
}

/** The first `verb resource` entry of the deny list that matches, if any. */
export function deniedBy(
	deny: readonly string[],
	verb: string,
	resource: string,
	subresource?: string,
): string | undefined {
	const full = subresource ? `${resource}/${subresource}` : resource;
	for (const entry of deny) {
		const [v = '', r = ''] = entry.trim().split(/\s+/);
		const [rName = '', rSub] = r.split('/');
		const rFull = rSub ? `${rName.split('.')[0]}/${rSub}` : (rName.split('.')[0] ?? '');
		if ((v === '*' || v === verb) && (r === '*' || rFull === full)) return entry;
	}
	return undefined;
}

/** The simulated API server. */
export class SimServer {
	/** The plain HTTP server. */
	private readonly http: Server;
	/** The HTTPS server (self-signed; kubectl sends credentials only over TLS). */
	private readonly https: Server;
	/** The listening socket: it hands each connection to the HTTP or the HTTPS server. */
	private readonly net: NetServer;
	private readonly store: Store;
	private readonly config: SimClusterConfig;
	private readonly token: string;
	private readonly faults: FaultSwitch;
	private readonly audit: AuditLog;
	private readonly user: string;
	private readonly bookmarkMs: number;
	private readonly sockets = new Set<Socket | Duplex>();
	private readonly watches = new Set<WatchStream>();
	private port = 0;
	private closed = false;

	constructor(opts: SimServerOptions) {
		this.store = opts.store;
		this.config = opts.config;
		this.token = opts.token;
		this.faults = opts.faults;
		this.audit = opts.audit;
		this.user = opts.user ?? 'ctpool-sim';
		this.bookmarkMs = opts.bookmarkIntervalMs ?? 5000;
		const handler = (req: IncomingMessage, res: ServerResponse) => {
			this.handle(req, res).catch((err) => this.fail(res, err));
		};
		const tls = selfSignedCertificate();
		this.http = createServer({ keepAliveTimeout: 30_000 }, handler);
		this.https = createHttpsServer({ keepAliveTimeout: 30_000, ...tls }, handler);
		for (const srv of [this.http, this.https]) {
			srv.on('upgrade', (req, socket, head) => this.handleUpgrade(req, socket, head));
			srv.on('clientError', (_err, socket) => socket.destroy());
		}
		// One port, both protocols: a TLS handshake starts with 0x16.
		this.net = createNetServer({ noDelay: true }, (socket) => {
			if (this.closed || this.faults.refuseConnection()) {
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
		this.faults.attach({
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

	// ---- plumbing ----------------------------------------------------------------------

	private send(
		res: ServerResponse,
		code: number,
		body: string,
		contentType = 'application/json',
	): void {
		if (res.headersSent) {
			res.end();
			return;
		}
		res.writeHead(code, {
			'Content-Type': contentType,
			'Content-Length': Buffer.byteLength(body),
			'Cache-Control': 'no-cache, private',
		});
		res.end(body);
	}

	private sendObj(res: ServerResponse, code: number, obj: unknown): void {
		this.send(res, code, JSON.stringify(obj));
	}

	private sendError(res: ServerResponse, err: SimApiError): void {
		this.send(res, err.code, JSON.stringify(err.status));
	}

	private fail(res: ServerResponse, err: unknown): void {
		if (isSimApiError(err)) this.sendError(res, err);
		else this.sendError(res, internalError(err instanceof Error ? err.message : String(err)));
	}

	private authorised(req: IncomingMessage): boolean {
		const h = req.headers.authorization ?? '';
		return h === `Bearer ${this.token}`;
	}

	private readBody(req: IncomingMessage): Promise<string> {
		return this.readRaw(req).then((b) => b.toString('utf8'));
	}

	private readRaw(req: IncomingMessage): Promise<Buffer> {
		return new Promise((resolve, reject) => {
			const chunks: Buffer[] = [];
			let size = 0;
			req.on('data', (c: Buffer) => {
				size += c.length;
				if (size > MAX_BODY) {
					reject(new SimError(413, 'RequestEntityTooLarge', 'the request body is too large', {}));
					req.destroy();
					return;
				}
				chunks.push(c);
			});
			req.on('end', () => resolve(Buffer.concat(chunks)));
			req.on('error', reject);
		});
	}

	private async readJson(req: IncomingMessage): Promise<unknown> {
		const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
		if (type === PROTOBUF) throw unsupportedMediaType(type, 'application/json');
		const text = await this.readBody(req);
		if (text.trim() === '') return undefined;
		try {
			return JSON.parse(text) as unknown;
		} catch (e) {
			throw badRequest(`json: ${(e as Error).message}`);
		}
	}

	/** Splits a path into an API route: discovery parts or a resource route. */
	private route(
		parts: string[],
	): { gv: { group: string; version: string }; rest: string[] } | undefined {
		if (parts[0] === 'api' && parts[1] === 'v1')
			return { gv: { group: '', version: 'v1' }, rest: parts.slice(2) };
		if (parts[0] === 'apis' && parts.length >= 3) {
			return { gv: { group: parts[1]!, version: parts[2]! }, rest: parts.slice(3) };
		}
		return undefined;
	}

	private resourceRoute(gv: { group: string; version: string }, rest: string[]): Route | undefined {
		const find = (name: string) => {
			const info = RESOURCES.get(name);
			return info && info.group === gv.group && info.version === gv.version ? info : undefined;
		};
		if (rest[0] === 'namespaces' && gv.group === '' && rest.length >= 3 && rest.length <= 5) {
			if (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize')) {
				return { info: find('namespaces')!, name: rest[1], sub: rest[2] };
			}
		}
		if (rest[0] === 'namespaces' && rest.length >= 3) {
			const info = find(rest[2]!);
			if (!info?.namespaced || rest.length > 5) return undefined;
			return { info, namespace: rest[1], name: rest[3], sub: rest[4] };
		}
		if (rest.length >= 1 && rest.length <= 3) {
			const info = find(rest[0]!);
			if (!info) return undefined;
			if (info.namespaced && rest.length > 1) return undefined;
			return { info, name: rest[1], sub: rest[2] };
		}
		return undefined;
	}

	// ---- requests ----------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://localhost');
		const path = url.pathname.replace(/\/+$/, '') || '/';
		const q = url.searchParams;
		const method = req.method ?? 'GET';
		const who = whoFromUserAgent(req.headers['user-agent']);
		const parts = path.split('/').filter(Boolean);

		if (/^\/(healthz|livez|readyz)(\/.*)?$/.test(path)) {
			this.send(res, 200, 'ok', 'text/plain; charset=utf-8');
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
			this.audit.recordRequest(reqLog);
		};
		res.once('close', record);
		if (!this.authorised(req)) {
			this.sendError(res, unauthorized());
			return;
		}

		const api = this.route(parts);
		const route = api && api.rest.length > 0 ? this.resourceRoute(api.gv, api.rest) : undefined;
		const isWatch =
			method === 'GET' &&
			route !== undefined &&
			route.sub === undefined &&
			parseBool(q.get('watch'));
		if (route) {
			reqLog.resource = route.info.name;
			if (route.namespace) reqLog.namespace = route.namespace;
			if (route.name) reqLog.name = route.name;
			if (route.sub) reqLog.subresource = route.sub;
		}

		const delay = this.faults.latency();
		if (delay > 0) await sleep(delay);
		if (!isWatch) {
			const code = this.faults.failure();
			if (code === 500) {
				this.sendError(res, internalError('injected fault'));
				return;
			}
			if (code === 503) {
				this.sendError(res, serviceUnavailable());
				return;
			}
		}

		// discovery and documents
		if (method === 'GET' && !route) {
			reqLog.verb = 'discovery';
			const doc = this.document(path, parts);
			if (doc !== undefined) {
				this.sendObj(res, 200, doc);
				return;
			}
		}
		if (method === 'POST' && path === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') {
			reqLog.verb = 'create';
			reqLog.resource = 'selfsubjectaccessreviews';
			await this.accessReview(req, res);
			return;
		}
		if (!route) {
			this.sendError(res, pathNotFound());
			return;
		}

		const verb = this.verbOf(method, route, isWatch);
		reqLog.verb = verb ?? 'other';
		if (!verb) {
			this.sendError(res, methodNotAllowed());
			return;
		}
		const denial = deniedBy(this.config.deny, verb, route.info.name, route.sub);
		if (denial) {
			this.sendError(
				res,
				forbidden(this.user, verb, route.info.name, route.namespace, route.name, route.sub),
			);
			return;
		}
		const fmt = parseAccept(req.headers.accept);
		if (route.sub === 'exec' || route.sub === 'attach') {
			if (route.info.name !== 'pods' || !route.name) throw pathNotFound();
			const err = execPreflight(this.execContext(route, q));
			this.sendError(res, err ?? badRequest('Upgrade request required'));
			return;
		}
		if (route.sub === 'log') {
			this.podLog(res, route, q);
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
				this.watch(res, route, q, fmt, record);
				return;
			case 'list':
				this.list(res, route, q, fmt);
				return;
			case 'get':
				this.get(res, route, q, fmt);
				return;
			case 'create':
				await this.create(req, res, route, q, who);
				return;
			case 'update':
				await this.update(req, res, route, who);
				return;
			case 'patch':
				await this.patch(req, res, route, who);
				return;
			case 'delete':
				await this.delete(req, res, route, q, who);
				return;
			case 'deletecollection':
				await this.deleteCollection(req, res, route, q, who);
				return;
		}
		this.sendError(res, methodNotAllowed());
	}

	private verbOf(method: string, route: Route, isWatch: boolean): string | undefined {
		const item = route.name !== undefined;
		if (route.sub === 'exec' || route.sub === 'attach') return 'create';
		switch (method) {
			case 'GET':
				if (isWatch) return 'watch';
				return item ? 'get' : 'list';
			case 'POST':
				return item ? undefined : 'create';
			case 'PUT':
				return item ? 'update' : undefined;
			case 'PATCH':
				return item ? 'patch' : undefined;
			case 'DELETE':
				return item ? 'delete' : 'deletecollection';
			default:
				return undefined;
		}
	}

	private document(path: string, parts: string[]): unknown | undefined {
		if (path === '/version') return SIM_VERSION;
		if (path === '/api') return apiVersions(`127.0.0.1:${this.port}`);
		if (path === '/apis') return apiGroupList();
		if (path === '/api/v1') return apiResourceList('', 'v1');
		if (parts[0] === 'apis' && parts.length === 2) return apiGroupDoc(parts[1]!);
		if (parts[0] === 'apis' && parts.length === 3) return apiResourceList(parts[1]!, parts[2]!);
		if (path === '/openapi/v3') return openApiV3Index();
		if (parts[0] === 'openapi' && parts[1] === 'v3') {
			const rest = parts.slice(2);
			if (rest[0] === 'api' && rest.length === 2) return openApiV3Doc('', rest[1]!);
			if (rest[0] === 'apis' && rest.length === 3) return openApiV3Doc(rest[1]!, rest[2]!);
		}
		return undefined;
	}

	private execContext(route: Route, q: URLSearchParams): ExecContext {
		return {
			store: this.store,
			config: this.config,
			namespace: route.namespace ?? 'default',
			pod: route.name ?? '',
			query: q,
		};
	}

	// ---- reads -------------------------------------------------------------------------

	private listOptions(route: Route, q: URLSearchParams): ListOptions {
		return {
			namespace: route.info.namespaced ? route.namespace : undefined,
			labels: parseLabelSelector(q.get('labelSelector')),
			fields: parseFieldSelector(route.info.name, q.get('fieldSelector')),
		};
	}

	private includeObject(q: URLSearchParams): IncludeObject {
		const v = q.get('includeObject');
		return v === 'None' || v === 'Object' ? v : 'Metadata';
	}

	private listBody(
		route: Route,
		fmt: Format,
		q: URLSearchParams,
		entries: StoredEntry[],
		meta: Record<string, unknown>,
	): string {
		const info = route.info;
		if (fmt.as === 'table') {
			const now = Date.now();
			const include = this.includeObject(q);
			const rows = entries.map((e) => rowJson(info.name, e.obj, e.json, include, now));
			return tableJson(
				info.name,
				`meta.k8s.io/${fmt.version}`,
				meta,
				rows,
				q.get('includeObject') !== 'NoHeaders',
			);
		}
		if (fmt.as === 'partial') {
			const items = entries.map((e) => this.partialJson(fmt.version, e.obj));
			return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${fmt.version}","metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`;
		}
		return `{"kind":"${info.kind}List","apiVersion":"${apiVersionOf(info)}","metadata":${JSON.stringify(meta)},"items":[${entries.map((e) => e.json).join(',')}]}`;
	}

	private partialJson(version: string, obj: SimObject): string {
		return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(obj.metadata)}}`;
	}

	private list(res: ServerResponse, route: Route, q: URLSearchParams, fmt: Format): void {
		const opts = this.listOptions(route, q);
		const rv = q.get('resourceVersion') ?? '';
		const rvm = q.get('resourceVersionMatch') ?? '';
		if (rvm && !rv) {
			throw invalid('', '', [
				{
					reason: 'FieldValueForbidden',
					message:
						'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
					field: 'resourceVersionMatch',
				},
			]);
		}
		if (rvm && rvm !== 'Exact' && rvm !== 'NotOlderThan') {
			throw invalid('', '', [
				{
					reason: 'FieldValueNotSupported',
					message: `Unsupported value: "${rvm}": supported values: "Exact", "NotOlderThan"`,
					field: 'resourceVersionMatch',
				},
			]);
		}
		if (rv !== '' && !/^\d+$/.test(rv)) {
			throw badRequest(`invalid resource version: ${rv}`);
		}
		const limit = Math.max(0, Number.parseInt(q.get('limit') ?? '0', 10) || 0);
		const cont = q.get('continue');
		let entries: StoredEntry[];
		let listRv: number;
		if (cont) {
			const t = decodeContinue(cont);
			entries = this.store.snapshotEntries(route.info.name, t.rv, opts, t.start);
			listRv = t.rv;
		} else if (rv !== '' && rvm === 'Exact') {
			const at = Number(rv);
			if (at < this.store.compactedRevision())
				throw expired(at, this.store.compactedRevision() + 1);
			entries = this.store.snapshotEntries(route.info.name, at, opts);
			listRv = at;
		} else {
			entries = this.store.listEntries(route.info.name, opts);
			listRv = this.store.revision();
		}
		const meta: Record<string, unknown> = { resourceVersion: String(listRv) };
		if (limit > 0 && entries.length > limit) {
			const page = entries.slice(0, limit);
			meta.continue = encodeContinue(listRv, keyOf(page[page.length - 1]!.obj));
			meta.remainingItemCount = entries.length - limit;
			entries = page;
		}
		this.send(res, 200, this.listBody(route, fmt, q, entries, meta), contentTypeOf(fmt));
	}

	private get(res: ServerResponse, route: Route, q: URLSearchParams, fmt: Format): void {
		const e = this.store.getEntry(route.info.name, route.namespace, route.name!);
		if (!e) throw notFound(route.info.name, route.name!);
		if (fmt.as === 'table' && route.sub === undefined) {
			const body = this.listBody(route, fmt, q, [e], {
				resourceVersion: e.obj.metadata.resourceVersion,
			});
			this.send(res, 200, body, contentTypeOf(fmt));
			return;
		}
		if (fmt.as === 'partial') {
			this.send(res, 200, this.partialJson(fmt.version, e.obj), contentTypeOf(fmt));
			return;
		}
		this.send(res, 200, e.json);
	}

	private podLog(res: ServerResponse, route: Route, q: URLSearchParams): void {
		if (route.info.name !== 'pods' || !route.name) throw pathNotFound();
		const pod = this.store.getEntry('pods', route.namespace, route.name)?.obj;
		if (!pod) throw notFound('pods', route.name);
		const spec = (pod.spec ?? {}) as { containers?: { name: string }[] };
		const names = (spec.containers ?? []).map((c) => c.name);
		let container = q.get('container') ?? '';
		if (!container) {
			if (names.length !== 1) {
				throw badRequest(
					`a container name must be specified for pod ${route.name}, choose one of: [${names.join(' ')}]`,
				);
			}
			container = names[0]!;
		}
		if (!names.includes(container)) {
			throw badRequest(`container ${container} is not valid for pod ${route.name}`);
		}
		const statuses =
			((pod.status as { containerStatuses?: unknown[] } | undefined)?.containerStatuses as
				| { name: string; state?: { waiting?: { reason?: string } } }[]
				| undefined) ?? [];
		const cs = statuses.find((s) => s.name === container);
		if (!cs || cs.state?.waiting) {
			const reason = cs?.state?.waiting?.reason ?? 'ContainerCreating';
			throw badRequest(
				`container "${container}" in pod "${route.name}" is waiting to start: ${reason}`,
			);
		}
		this.send(res, 200, '', 'text/plain');
	}

	// ---- watch -------------------------------------------------------------------------

	private watch(
		res: ServerResponse,
		route: Route,
		q: URLSearchParams,
		fmt: Format,
		started: () => void,
	): void {
		const info = route.info;
		const opts = route.name
			? { ...this.listOptions(route, q), fields: this.nameField(route, q) }
			: this.listOptions(route, q);
		const rvParam = q.get('resourceVersion') ?? '';
		if (rvParam !== '' && !/^\d+$/.test(rvParam))
			throw badRequest(`invalid resource version: ${rvParam}`);
		const bookmarks = parseBool(q.get('allowWatchBookmarks'));
		const sendInitial = parseBool(q.get('sendInitialEvents'));
		const timeoutRaw = Number.parseInt(q.get('timeoutSeconds') ?? '', 10);
		const timeoutMs =
			Number.isFinite(timeoutRaw) && timeoutRaw > 0
				? timeoutRaw * 1000
				: (1800 + Math.random() * 1800) * 1000;

		res.writeHead(200, {
			'Content-Type': contentTypeOf(fmt),
			'Cache-Control': 'no-cache, private',
			'Transfer-Encoding': 'chunked',
		});
		res.flushHeaders();
		started();

		let columnsSent = false;
		let done = false;
		let unsubscribe: (() => void) | undefined;
		let bookmarkTimer: NodeJS.Timeout | undefined;
		let timeoutTimer: NodeJS.Timeout | undefined;
		const include = this.includeObject(q);

		const cleanup = () => {
			done = true;
			unsubscribe?.();
			unsubscribe = undefined;
			if (bookmarkTimer) clearInterval(bookmarkTimer);
			if (timeoutTimer) clearTimeout(timeoutTimer);
			this.watches.delete(stream);
		};
		const stream: WatchStream = {
			res,
			end: (abrupt) => {
				if (done) return;
				cleanup();
				if (abrupt) res.socket?.destroy();
				else res.end();
			},
		};
		this.watches.add(stream);
		res.once('close', cleanup);
		const writeLine = (line: string) => {
			if (done) return;
			res.write(`${line}\n`);
			if (res.writableLength > MAX_WATCH_BUFFER) stream.end(true);
		};
		const writeObject = (type: string, obj: SimObject, json: string) => {
			if (fmt.as === 'table') {
				const row = rowJson(info.name, obj, json, include, Date.now());
				const table = tableJson(
					info.name,
					`meta.k8s.io/${fmt.version}`,
					{ resourceVersion: obj.metadata.resourceVersion },
					[row],
					!columnsSent,
				);
				columnsSent = true;
				writeLine(`{"type":"${type}","object":${table}}`);
			} else if (fmt.as === 'partial') {
				writeLine(`{"type":"${type}","object":${this.partialJson(fmt.version, obj)}}`);
			} else {
				writeLine(`{"type":"${type}","object":${json}}`);
			}
		};
		const bookmark = (initialEnd = false) => {
			const ann = initialEnd ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : '';
			writeLine(
				`{"type":"BOOKMARK","object":{"kind":"${info.kind}","apiVersion":"${apiVersionOf(info)}","metadata":{"resourceVersion":"${this.store.revision()}"${ann}}}}`,
			);
		};
		const errorEvent = (err: SimApiError) => {
			writeLine(`{"type":"ERROR","object":${JSON.stringify(err.status)}}`);
			stream.end(false);
		};
		const deliver = (d: WatchDelivery) => writeObject(d.type, d.obj, d.json);

		const fromRv = rvParam === '' || rvParam === '0' || sendInitial ? undefined : Number(rvParam);
		if (fromRv !== undefined) {
			if (this.faults.take410()) {
				errorEvent(expired(fromRv, this.store.revision()));
				return;
			}
			try {
				unsubscribe = this.store.watchEntries(
					info.name,
					{ ...opts, fromRevision: fromRv },
					deliver,
				);
			} catch (err) {
				if (isSimApiError(err)) errorEvent(err);
				else errorEvent(internalError(String(err)));
				return;
			}
		} else {
			for (const e of this.store.listEntries(info.name, opts)) writeObject('ADDED', e.obj, e.json);
			if (sendInitial && bookmarks) bookmark(true);
			unsubscribe = this.store.watchEntries(info.name, opts, deliver);
		}
		if (bookmarks && fmt.as === 'json') {
			bookmarkTimer = setInterval(() => bookmark(), this.bookmarkMs);
			bookmarkTimer.unref();
		}
		timeoutTimer = setTimeout(() => {
			if (bookmarks && fmt.as === 'json') bookmark();
			stream.end(false);
		}, timeoutMs);
		timeoutTimer.unref();
	}

	private nameField(route: Route, q: URLSearchParams): ListOptions['fields'] {
		const name = route.name!;
		const other = parseFieldSelector(route.info.name, q.get('fieldSelector'));
		return (obj) => obj.metadata.name === name && (!other || other(obj));
	}

	// ---- writes ------------------------------------------------------------------------

	private checkBody(route: Route, body: unknown): SimObject {
		if (body === null || typeof body !== 'object' || Array.isArray(body)) {
			throw badRequest('the body of the request must be a JSON object');
		}
		const obj = body as SimObject;
		const info = route.info;
		if (obj.kind !== undefined && obj.kind !== info.kind) {
			throw badRequest(
				`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: kind "${String(obj.kind)}" does not match "${info.kind}"`,
			);
		}
		if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersionOf(info)) {
			throw badRequest(
				`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersionOf(info)})`,
			);
		}
		obj.apiVersion = apiVersionOf(info);
		obj.kind = info.kind;
		obj.metadata =
			obj.metadata && typeof obj.metadata === 'object'
				? obj.metadata
				: ({} as SimObject['metadata']);
		if (info.namespaced) {
			if (obj.metadata.namespace && route.namespace && obj.metadata.namespace !== route.namespace) {
				throw badRequest(
					'the namespace of the provided object does not match the namespace sent on the request',
				);
			}
			obj.metadata.namespace = route.namespace;
		}
		this.checkMicroTimes(info, obj);
		return obj;
	}

	/** Lease times are MicroTime: exactly six fractional digits, as the real decoder demands. */
	private checkMicroTimes(info: ResourceInfo, obj: SimObject): void {
		if (info.name !== 'leases' && info.name !== 'events') return;
		const spec = (info.name === 'leases' ? obj.spec : obj) as Record<string, unknown> | undefined;
		const fields = info.name === 'leases' ? ['acquireTime', 'renewTime'] : ['eventTime'];
		for (const f of fields) {
			const v = spec?.[f];
			if (v === undefined || v === null) continue;
			if (
				typeof v !== 'string' ||
				!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/.test(v)
			) {
				throw badRequest(
					`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(String(v).slice(19))} as ".000000"`,
				);
			}
		}
	}

	private rejectDryRun(q: URLSearchParams): void {
		if (q.getAll('dryRun').length > 0) {
			throw badRequest('dryRun is not supported by the simulated cluster');
		}
	}

	/** Runs a store write in the audit scope of a request and records it when it changed nothing. */
	private audited<T extends SimObject>(
		scope: { verb: string; resource: string; namespace?: string; name?: string; who: string },
		code: number,
		fn: () => T,
	): T {
		const before = this.store.revision();
		try {
			const out = this.audit.within({ ...scope, code }, fn);
			if (this.store.revision() === before) {
				this.audit.recordUnchanged({ ...scope, code }, out.metadata.resourceVersion ?? '');
			}
			return out;
		} catch (err) {
			const c = isSimApiError(err) ? err.code : 500;
			this.audit.recordUnchanged({ ...scope, code: c }, '');
			throw err;
		}
	}

	private async create(
		req: IncomingMessage,
		res: ServerResponse,
		route: Route,
		q: URLSearchParams,
		who: string,
	): Promise<void> {
		if (route.sub) throw methodNotAllowed();
		this.rejectDryRun(q);
		const obj = this.checkBody(route, await this.readJson(req));
		if (obj.metadata.resourceVersion) {
			throw badRequest('resourceVersion should not be set on objects to be created');
		}
		const status = initialStatus(route.info.name);
		if (status && route.info.statusSubresource) obj.status = status;
		const name = obj.metadata.name || `${String(obj.metadata.generateName ?? '')}…`;
		const created = this.audited(
			{ verb: 'create', resource: route.info.name, namespace: route.namespace, name, who },
			201,
			() => this.store.create(route.info.name, obj, { who }),
		);
		this.sendObj(res, 201, created);
	}

	/** What a write through the main resource or a subresource may change, merged onto the stored object. */
	private merged(route: Route, current: SimObject, next: SimObject): SimObject {
		if (route.sub === 'status') {
			return {
				...current,
				metadata: {
					...current.metadata,
					resourceVersion: next.metadata?.resourceVersion ?? current.metadata.resourceVersion,
				},
				status: next.status,
			};
		}
		if (route.sub === 'finalize') {
			return {
				...current,
				metadata: {
					...current.metadata,
					resourceVersion: next.metadata?.resourceVersion ?? current.metadata.resourceVersion,
				},
				spec: next.spec,
			};
		}
		checkImmutable(route.info.name, current, next, this.store.defaultGraceSeconds);
		if (route.info.statusSubresource) {
			const out = { ...next };
			if (current.status === undefined) delete out.status;
			else out.status = current.status;
			return out;
		}
		return next;
	}

	private async update(
		req: IncomingMessage,
		res: ServerResponse,
		route: Route,
		who: string,
	): Promise<void> {
		const body = this.checkBody(route, await this.readJson(req));
		const name = route.name!;
		if (body.metadata.name && body.metadata.name !== name) {
			throw badRequest(
				`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
			);
		}
		body.metadata.name = name;
		const current = this.store.get(route.info.name, route.namespace, name);
		const scope = {
			verb: 'update',
			resource: route.info.name,
			namespace: route.namespace,
			name,
			who,
		};
		if (!current) {
			if (!CREATE_ON_UPDATE.has(route.info.name) || route.sub)
				throw notFound(route.info.name, name);
			delete body.metadata.resourceVersion;
			const created = this.audited({ ...scope, verb: 'create' }, 201, () =>
				this.store.create(route.info.name, body, { who }),
			);
			this.sendObj(res, 201, created);
			return;
		}
		const next = this.merged(route, current, body);
		const written = this.audited(scope, 200, () =>
			this.store.update(route.info.name, next, { who }),
		);
		this.sendObj(res, 200, written);
	}

	private async patch(
		req: IncomingMessage,
		res: ServerResponse,
		route: Route,
		who: string,
	): Promise<void> {
		const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
		const text = await this.readBody(req);
		let patch: unknown;
		if (
			type !== 'application/json-patch+json' &&
			type !== 'application/merge-patch+json' &&
			type !== 'application/strategic-merge-patch+json'
		) {
			throw unsupportedMediaType(type || '(none)');
		}
		try {
			patch = JSON.parse(text || 'null');
		} catch (e) {
			throw badRequest(`json: ${(e as Error).message}`);
		}
		const name = route.name!;
		const current = this.store.get(route.info.name, route.namespace, name);
		if (!current) throw notFound(route.info.name, name);
		let patched: unknown;
		if (type === 'application/json-patch+json') patched = applyJsonPatch(current, patch);
		else if (type === 'application/merge-patch+json') patched = applyMergePatch(current, patch);
		else patched = applyStrategicMergePatch(current, patch);
		const next = this.checkBody(route, patched);
		if (next.metadata.name !== name) {
			throw badRequest(
				`the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${name})`,
			);
		}
		const merged = this.merged(route, current, next);
		const written = this.audited(
			{ verb: 'patch', resource: route.info.name, namespace: route.namespace, name, who },
			200,
			() => this.store.update(route.info.name, merged, { who }),
		);
		this.sendObj(res, 200, written);
	}

	private async deleteOptions(
		req: IncomingMessage,
		q: URLSearchParams,
		who: string,
	): Promise<DeleteOptions> {
		const body = (await this.readJson(req)) as
			| {
					gracePeriodSeconds?: number;
					propagationPolicy?: string;
					preconditions?: { uid?: string; resourceVersion?: string };
					dryRun?: string[];
			  }
			| undefined;
		const opts: DeleteOptions = { who };
		const g =
			body?.gracePeriodSeconds ??
			(q.get('gracePeriodSeconds') !== null ? Number(q.get('gracePeriodSeconds')) : undefined);
		if (g !== undefined && g !== null && Number.isFinite(Number(g)))
			opts.gracePeriodSeconds = Number(g);
		const policy = body?.propagationPolicy ?? q.get('propagationPolicy') ?? undefined;
		if (policy) {
			if (!['Orphan', 'Background', 'Foreground'].includes(policy)) {
				throw invalid('', '', [
					{
						reason: 'FieldValueNotSupported',
						message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
						field: 'propagationPolicy',
					},
				]);
			}
			opts.propagationPolicy = policy;
		}
		if (body?.preconditions) opts.preconditions = body.preconditions;
		if ((body?.dryRun ?? []).length > 0 || q.getAll('dryRun').length > 0) {
			throw badRequest('dryRun is not supported by the simulated cluster');
		}
		return opts;
	}

	private deletedBody(route: Route, deleted: SimObject): string {
		const info = route.info;
		const still = this.store.getEntry(info.name, deleted.metadata.namespace, deleted.metadata.name);
		if (still && still.obj.metadata.uid === deleted.metadata.uid) return still.json;
		if (RETURNS_OBJECT.has(info.name)) return JSON.stringify(deleted);
		return JSON.stringify({
			kind: 'Status',
			apiVersion: 'v1',
			metadata: {},
			status: 'Success',
			details: {
				name: deleted.metadata.name,
				...(info.group ? { group: info.group } : {}),
				kind: info.name,
				uid: deleted.metadata.uid,
			},
		});
	}

	private async delete(
		req: IncomingMessage,
		res: ServerResponse,
		route: Route,
		q: URLSearchParams,
		who: string,
	): Promise<void> {
		if (route.sub) throw methodNotAllowed();
		const opts = await this.deleteOptions(req, q, who);
		const name = route.name!;
		const deleted = this.audited(
			{ verb: 'delete', resource: route.info.name, namespace: route.namespace, name, who },
			200,
			() => this.store.delete(route.info.name, route.namespace, name, opts),
		);
		this.send(res, 200, this.deletedBody(route, deleted));
	}

	private async deleteCollection(
		req: IncomingMessage,
		res: ServerResponse,
		route: Route,
		q: URLSearchParams,
		who: string,
	): Promise<void> {
		if (route.sub) throw methodNotAllowed();
		if (route.info.name === 'namespaces') throw methodNotAllowed();
		const opts = await this.deleteOptions(req, q, who);
		const list = this.listOptions(route, q);
		const out: string[] = [];
		for (const e of this.store.listEntries(route.info.name, list)) {
			const o = e.obj;
			try {
				const deleted = this.audited(
					{
						verb: 'deletecollection',
						resource: route.info.name,
						namespace: o.metadata.namespace,
						name: o.metadata.name,
						who,
					},
					200,
					() => this.store.delete(route.info.name, o.metadata.namespace, o.metadata.name, opts),
				);
				out.push(JSON.stringify(deleted));
			} catch (err) {
				if (!isSimApiError(err) || err.code !== 404) throw err;
			}
		}
		const info = route.info;
		this.send(
			res,
			200,
			`{"kind":"${info.kind}List","apiVersion":"${apiVersionOf(info)}","metadata":{"resourceVersion":"${this.store.revision()}"},"items":[${out.join(',')}]}`,
		);
	}

	// ---- authorisation -----------------------------------------------------------------

	private async accessReview(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
		let body:
			| {
					spec?: {
						resourceAttributes?: Record<string, string>;
						nonResourceAttributes?: Record<string, string>;
					};
			  }
			| undefined;
		if (type === PROTOBUF) {
			try {
				body = decodeSelfSubjectAccessReview(await this.readRaw(req));
			} catch (e) {
				throw badRequest(`protobuf: ${(e as Error).message}`);
			}
		} else body = (await this.readJson(req)) as typeof body;
		const spec = body?.spec ?? {};
		const attrs = spec.resourceAttributes;
		let status: Record<string, unknown> = {
			allowed: true,
			reason: 'allowed by the simulated cluster',
		};
		if (attrs) {
			const resource = (attrs.resource ?? '').split('.')[0] ?? '';
			const denial = deniedBy(
				this.config.deny,
				attrs.verb ?? '',
				resource,
				attrs.subresource || undefined,
			);
			if (denial) {
				status = {
					allowed: false,
					reason: `denied by the simulated cluster's configuration: ${denial}`,
				};
			}
		} else if (!spec.nonResourceAttributes) {
			throw invalid('selfsubjectaccessreviews', '', [
				{
					reason: 'FieldValueRequired',
					message:
						'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
					field: 'spec.resourceAttributes',
				},
			]);
		}
		this.sendObj(res, 201, {
			kind: 'SelfSubjectAccessReview',
			apiVersion: 'authorization.k8s.io/v1',
			metadata: { creationTimestamp: null },
			spec,
			status,
		});
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
			if (!this.authorised(req)) throw unauthorized();
			const parts = url.pathname.split('/').filter(Boolean);
			const api = this.route(parts);
			const route = api ? this.resourceRoute(api.gv, api.rest) : undefined;
			if (
				route?.info.name !== 'pods' ||
				!route.name ||
				(route.sub !== 'exec' && route.sub !== 'attach')
			) {
				throw pathNotFound();
			}
			reqLog.resource = 'pods';
			reqLog.subresource = route.sub;
			reqLog.namespace = route.namespace;
			reqLog.name = route.name;
			if (deniedBy(this.config.deny, 'create', 'pods', route.sub)) {
				throw forbidden(this.user, 'create', 'pods', route.namespace, route.name, route.sub);
			}
			const ctx = this.execContext(route, url.searchParams);
			const pre = execPreflight(ctx);
			if (pre) throw pre;
			const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
			if (upgrade !== 'websocket') {
				throw badRequest(
					'the simulated cluster serves exec over WebSocket (v5.channel.k8s.io) only; SPDY is not supported',
				);
			}
			this.audit.recordRequest(reqLog);
			execUpgrade(req, socket, head, ctx);
		} catch (err) {
			const e = isSimApiError(err) ? err : internalError(String(err));
			reqLog.code = e.code;
			this.audit.recordRequest(reqLog);
			this.rawError(socket, e);
		}
	}
}
