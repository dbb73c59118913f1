/**
 * Loading the cluster connection the way kubectl does, and API clients whose every call has
 * a deadline and a `ctpool/<version>` User-Agent.
 */
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import tls from 'node:tls';
import type {
	AuthorizationV1Api,
	Cluster,
	Context,
	CoordinationV1Api,
	CoreV1Api,
	User,
} from '@kubernetes/client-node';
// KubeConfig from its own module: client-node's index reaches every generated API and model,
// and the bundle would then load them with the console (see scripts/build.mjs).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
// The YAML reader client-node's KubeConfig uses; client-node's own loadYaml would bring its
// object serializer and every generated model into the console's start-up.
import { load as loadYaml } from 'js-yaml';
import { ctpoolVersion } from '../build-info.js';
import { PoolError } from '../pool/errors.js';
import { defaultNamespace } from '../pool/names.js';
import { getJson, type Query } from './api-request.js';
import { resolveContext } from './corral-context.js';
import { redact, registerSecret } from './errors.js';
import { type ExecConfig, execCredential, tokenFromFile } from './exec-credential.js';
import { type InClusterConfig, inClusterEnv, loadInClusterConfig } from './in-cluster.js';

/** How to reach the cluster: the flags every command takes. */
export interface KubeOptions {
	kubeconfig?: string;
	context?: string;
	namespace?: string;
	/**
	 * The namespace above is only the fallback ($CORRAL_NAMESPACE, else corral-vms), not -n:
	 * in a pod the service account's namespace wins over it.
	 */
	namespaceIsFallback?: boolean;
	requestTimeoutMs?: number;
	/** The environment (KUBECONFIG, HOME, KUBERNETES_SERVICE_*); default process.env. */
	env?: Record<string, string | undefined>;
	/** Where the in-cluster service account files are (default the pod's mount). */
	serviceAccountDir?: string;
	/**
	 * Read `context` as Corral does (corral-context.ts): a Corral kubevirt context, else a
	 * kubeconfig context; without it $CORRAL_KUBE_CONTEXT, else Corral's kubevirt.context.
	 * The CLI's global flags set it; ctpool's own kubeconfigs (demo, sim) do not.
	 */
	corralContexts?: boolean;
	/** The environment Corral's context rules read (HOME, CORRAL_KUBE_CONTEXT); default env. */
	corralEnv?: Record<string, string | undefined>;
}

/**
 * A loaded cluster connection: the one client through which every cluster call goes. Its
 * typed clients (core, coordination, authorization) and the raw lists and watches of
 * api-request.ts (through `config`) share one kept-alive connection pool per kubeconfig,
 * one deadline per call, and the one retry policy and abortable sleep of retry.ts. The
 * access review is kube/access-review.ts; the engine reads Events through it.
 */
export interface PoolClient {
	/** client-node KubeConfig, loaded like kubectl (KUBECONFIG list, --kubeconfig, --context). */
	config: KubeConfig;
	/** The context in use. */
	contextName: string;
	/** The cluster URL, for display. */
	server: string;
	/** -n, else $CORRAL_NAMESPACE, else corral-vms (Corral's namespace). */
	namespace: string;
	/** Core API (pods, PVCs, ConfigMaps, Services, Events); every call has a deadline. */
	core: CoreV1Api;
	/** Leases. */
	coordination: CoordinationV1Api;
	/** SelfSubjectAccessReview. */
	authorization: AuthorizationV1Api;
	/**
	 * A raw GET answered with plain JSON (big lists without client-node's model classes),
	 * with the deadline of every call and the retry policy of every read (retry.ts).
	 */
	readJson<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T>;
	/** The deadline of every call (ms); DEFAULT_REQUEST_TIMEOUT_MS when absent. */
	requestTimeoutMs?: number;
}

/** The cluster connection, by the name most of ctpool knows it under: a PoolClient. */
export type Kube = PoolClient;

/** The typed API clients of a connection (see Kube). */
export type TypedClients = Pick<Kube, 'core' | 'coordination' | 'authorization'>;

/** The deadline of an API call when none is given (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

const NO_KUBECONFIG =
	'no kubeconfig found: set KUBECONFIG or pass --kubeconfig FILE, or try ctpool --demo';

/** The User-Agent of every request, so audit logs can tell ctpool from kubectl. */
export function userAgent(): string {
	return `ctpool/${ctpoolVersion()} (node ${process.version}; ${process.platform})`;
}

/**
 * The `tokenFile` of each user of a kubeconfig text (kubectl's name for it; client-node 1.4
 * reads only `token-file`), by user name.
 */
function tokenFilesOf(text: string): Map<string, string> {
	const out = new Map<string, string>();
	try {
		const doc = loadYaml(text) as {
			users?: Array<{ name?: unknown; user?: Record<string, unknown> }>;
		} | null;
		for (const u of doc?.users ?? []) {
			const file = u?.user?.tokenFile;
			if (typeof u?.name === 'string' && typeof file === 'string' && file.length > 0)
				out.set(u.name, file);
		}
	} catch {
		// client-node read it: a second reading that fails only loses tokenFile
	}
	return out;
}

/** Each file's tokenFile entries, while the files are merged. */
const rawTokenFiles = new WeakMap<KubeConfig, Map<string, string>>();

/** What a merged kubeconfig's current user needs beyond what client-node does with it. */
interface ExtraCredentials {
	/** The user's exec plugin, taken out of client-node's hands (run once per process here). */
	exec?: ExecConfig;
	/** The user's tokenFile (kubectl's field). */
	tokenFile?: string;
}

const extraCredentials = new WeakMap<KubeConfig, ExtraCredentials>();

/** One kubeconfig file read with client-node; errors become usage errors without file text. */
function readKubeconfigFile(file: string): KubeConfig {
	const kc = new KubeConfig();
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		const why =
			code === 'EACCES'
				? 'permission denied'
				: code === 'EISDIR'
					? 'it is a directory'
					: (code ?? 'unreadable');
		throw new PoolError('usage', `cannot read kubeconfig ${file}: ${why}`);
	}
	if (text.trim() === '') return kc;
	try {
		kc.loadFromFile(file);
		rawTokenFiles.set(kc, tokenFilesOf(text));
	} catch (err) {
		// js-yaml's message quotes the file; only keep its reason and line.
		const e = err as { reason?: string; mark?: { line?: number }; message?: string; name?: string };
		const why =
			e.name === 'YAMLException'
				? `not valid YAML (${e.reason ?? 'syntax error'}${e.mark?.line !== undefined ? ` at line ${e.mark.line + 1}` : ''})`
				: redact(String(e.message ?? err));
		throw new PoolError('usage', `cannot load kubeconfig ${file}: ${why}`);
	}
	return kc;
}

/** The files kubectl would read, in precedence order, and where the list came from. */
function kubeconfigFiles(opts: KubeOptions): { files: string[]; explicit: boolean } {
	if (opts.kubeconfig) {
		if (!existsSync(opts.kubeconfig))
			throw new PoolError(
				'usage',
				`kubeconfig ${opts.kubeconfig} not found: check the path given to --kubeconfig`,
			);
		return { files: [opts.kubeconfig], explicit: true };
	}
	const vars = opts.env ?? process.env;
	const env = vars.KUBECONFIG;
	if (env && env.length > 0) {
		const files = [...new Set(env.split(delimiter).filter((f) => f.length > 0))];
		return { files: files.filter((f) => existsSync(f)), explicit: false };
	}
	const home = vars.HOME || homedir();
	const file = join(home, '.kube', 'config');
	return { files: existsSync(file) ? [file] : [], explicit: false };
}

/**
 * The kubeconfig merged like kubectl: the first file to define a cluster, user or context
 * name wins, and the first non-empty current-context wins.
 */
export function loadKubeConfig(opts: KubeOptions = {}): KubeConfig {
	const { files } = kubeconfigFiles(opts);
	if (files.length === 0) throw new PoolError('usage', NO_KUBECONFIG);
	const clusters = new Map<string, Cluster>();
	const users = new Map<string, User>();
	const contexts = new Map<string, Context>();
	const tokenFiles = new Map<string, string>();
	let currentContext = '';
	for (const file of files) {
		const kc = readKubeconfigFile(file);
		for (const c of kc.getClusters() ?? []) if (!clusters.has(c.name)) clusters.set(c.name, c);
		for (const u of kc.getUsers() ?? []) {
			if (users.has(u.name)) continue;
			users.set(u.name, u);
			const tokenFile = rawTokenFiles.get(kc)?.get(u.name);
			if (tokenFile) tokenFiles.set(u.name, tokenFile);
		}
		for (const c of kc.getContexts() ?? []) if (!contexts.has(c.name)) contexts.set(c.name, c);
		if (!currentContext && kc.getCurrentContext()) currentContext = kc.getCurrentContext();
	}
	const merged = new KubeConfig();
	merged.loadFromOptions({
		clusters: [...clusters.values()],
		users: [...users.values()],
		contexts: [...contexts.values()],
		currentContext,
	});
	rawTokenFiles.set(merged, tokenFiles);
	return merged;
}

function contextList(kc: KubeConfig): string {
	const names = kc.getContexts().map((c) => c.name);
	return names.length > 0 ? names.join(', ') : '(none)';
}

/** Picks and checks the context: --context, else current-context. */
function selectContext(kc: KubeConfig, wanted: string | undefined): Context {
	if (kc.getContexts().length === 0)
		throw new PoolError(
			'usage',
			'the kubeconfig has no contexts: add one with kubectl config set-context, or try ctpool --demo',
		);
	const name = wanted || kc.getCurrentContext();
	if (!name)
		throw new PoolError(
			'usage',
			`the kubeconfig sets no current-context: pass --context NAME (the contexts are ${contextList(kc)}) or run kubectl config use-context NAME`,
		);
	const ctx = kc.getContextObject(name);
	if (!ctx) {
		const how = wanted ? 'pass --context with one of them' : 'run kubectl config use-context NAME';
		throw new PoolError(
			'usage',
			`context "${name}" not found in the kubeconfig; the contexts are ${contextList(kc)} (${how})`,
		);
	}
	if (!ctx.cluster || !kc.getCluster(ctx.cluster))
		throw new PoolError(
			'usage',
			`context "${name}" names cluster "${ctx.cluster ?? ''}", which is not in the kubeconfig`,
		);
	kc.setCurrentContext(name);
	return ctx;
}

/** Registers the current user's credentials so no error text can show them. */
function registerCredentials(user: User | null): void {
	if (!user) return;
	registerSecret(user.token);
	registerSecret(user.password);
	registerSecret(user.keyData);
	const provider = user.authProvider as { config?: Record<string, unknown> } | undefined;
	for (const v of Object.values(provider?.config ?? {}))
		if (typeof v === 'string') registerSecret(v);
}

/**
 * Takes the credentials that client-node handles unlike kubectl out of its hands: an exec
 * plugin (client-node runs it for every request without an expirationTimestamp and quotes
 * its output in parse errors) and a `tokenFile` (client-node reads only `token-file`).
 */
function takeOverCredentials(kc: KubeConfig, user: User | null): void {
	if (!user) return;
	const extra: ExtraCredentials = {};
	const exec = (user as { exec?: ExecConfig }).exec;
	if (exec && typeof exec === 'object' && typeof exec.command === 'string') {
		extra.exec = exec;
		(user as { exec?: unknown }).exec = undefined;
	}
	const tokenFile = rawTokenFiles.get(kc)?.get(user.name);
	if (tokenFile && !user.token) extra.tokenFile = tokenFile;
	if (extra.exec || extra.tokenFile) extraCredentials.set(kc, extra);
}

/** How long an idle kept-alive connection is kept (ms; a shorter Keep-Alive hint of the server wins). */
export const IDLE_CONNECTION_MS = 30_000;

/**
 * How many connections at most to the cluster at once: a burst of requests (200 claims of a
 * broker) waits for a kept-alive connection instead of paying a TLS handshake each. Raw lists
 * and watches are not counted: they go through an agent of their own.
 */
export const MAX_CONNECTIONS = 32;

/** The TLS options of a request that decide which connections it may share. */
const AGENT_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'];

/** What client-node puts into the options of a request (see KubeConfig.applyToHTTPSOptions). */
interface HttpsOptions {
	headers?: Record<string, string | number | string[]>;
	auth?: string;
	agent?: http.Agent;
	[key: string]: unknown;
}

/** The authentication of one request, with the connection pool it goes through. */
export interface RequestAuth {
	/** Headers to send (Authorization: Bearer from a token, an exec plugin or a provider; impersonation). */
	headers: Record<string, string>;
	/** user:password for basic authentication, when the kubeconfig has one. */
	auth?: string;
	/** The kept-alive agent shared by every request of this kubeconfig with the same TLS options. */
	agent: http.Agent;
}

interface SharedAgent {
	options: Record<string, unknown>;
	/** The API clients' requests: at most MAX_CONNECTIONS connections. */
	agent: http.Agent;
	/** Raw lists and watches: no cap (a watch holds its connection for its life). */
	streams: http.Agent;
}

/** Which agent: the API clients' (capped) or that of raw lists and watches (no cap). */
export type ConnectionUse = 'request' | 'stream';

const sharedAgents = new WeakMap<KubeConfig, SharedAgent>();

/** The options of a request's TLS context (what tls.createSecureContext reads of them). */
function secureContextOptions(options: Record<string, unknown>): tls.SecureContextOptions {
	const out: tls.SecureContextOptions = {};
	for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase'] as const)
		if (options[k] !== undefined) (out as Record<string, unknown>)[k] = options[k];
	return out;
}

function sameOption(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (a == null || b == null) return (a ?? null) === (b ?? null);
	if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
	if (Array.isArray(a) && Array.isArray(b))
		return a.length === b.length && a.every((v, i) => sameOption(v, b[i]));
	return false;
}

/**
 * One kept-alive agent per kubeconfig, made like client-node's own (CA, client certificate
 * and key, skipTLSVerify, tlsServerName, proxy) so that every kind of kubeconfig still works;
 * made again when those options change (an exec plugin that hands out a new certificate).
 * client-node makes a new agent, hence a new TLS connection, for every request.
 */
function sharedAgent(kc: KubeConfig, opts: HttpsOptions, use: ConnectionUse): http.Agent {
	const cluster = kc.getCurrentCluster();
	const options: Record<string, unknown> = {};
	for (const k of AGENT_KEYS) if (opts[k] !== undefined) options[k] = opts[k];
	if (cluster?.skipTLSVerify) options.rejectUnauthorized = false;
	if (cluster?.tlsServerName) options.servername = cluster.tlsServerName;
	const known = sharedAgents.get(kc);
	if (
		known &&
		AGENT_KEYS.every((k) => sameOption(known.options[k], options[k])) &&
		Object.keys(known.options).length === Object.keys(options).length
	)
		return use === 'stream' ? known.streams : known.agent;
	// The agent it replaces keeps its requests in flight; its idle connections time out.
	const make = (kc as unknown as { createAgent?: (c: unknown, o: unknown) => http.Agent })
		.createAgent;
	// One TLS context for every connection of both agents: Node makes a new one (parsing the
	// CA, certificate and key again) for each connection otherwise, and the console opens a
	// dozen at start-up.
	const secure = cluster?.server.startsWith('http:')
		? {}
		: { secureContext: tls.createSecureContext(secureContextOptions(options)) };
	const build = (extra: Record<string, unknown>): http.Agent => {
		const agentOptions = {
			...options,
			...secure,
			keepAlive: true,
			timeout: IDLE_CONNECTION_MS,
			...extra,
		};
		if (typeof make === 'function') return make.call(kc, cluster, agentOptions);
		return cluster?.server.startsWith('http:')
			? new http.Agent(agentOptions)
			: new https.Agent(agentOptions);
	};
	const shared: SharedAgent = {
		options,
		agent: build({ maxSockets: MAX_CONNECTIONS }),
		streams: build({}),
	};
	sharedAgents.set(kc, shared);
	return use === 'stream' ? shared.streams : shared.agent;
}

/**
 * The authentication of a request to the current context (token, client certificate, exec
 * plugin, auth provider, basic) and the shared kept-alive agent to send it through (watches
 * and raw lists get their own, so that watches never hold the connections requests wait for).
 */
export async function requestAuth(
	kc: KubeConfig,
	use: ConnectionUse = 'request',
): Promise<RequestAuth> {
	const opts: HttpsOptions = {};
	await kc.applyToHTTPSOptions(opts as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
	const headers: Record<string, string> = {};
	for (const [k, v] of Object.entries(opts.headers ?? {}))
		headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
	const extra = extraCredentials.get(kc);
	if (extra?.exec) {
		const cred = await execCredential(extra.exec);
		if (cred.token) headers.Authorization = `Bearer ${cred.token}`;
		if (cred.clientCertificateData) opts.cert = cred.clientCertificateData;
		if (cred.clientKeyData) opts.key = cred.clientKeyData;
	} else if (extra?.tokenFile && !headers.Authorization) {
		headers.Authorization = `Bearer ${tokenFromFile(extra.tokenFile)}`;
	}
	const auth: RequestAuth = { headers, agent: sharedAgent(kc, opts, use) };
	if (typeof opts.auth === 'string') auth.auth = opts.auth;
	return auth;
}

/**
 * The in-cluster configuration when kubectl would use it: no --kubeconfig, no kubeconfig
 * file found, and KUBERNETES_SERVICE_HOST set (a pod); otherwise null.
 */
function inClusterFallback(opts: KubeOptions): InClusterConfig | null {
	const env = opts.env ?? process.env;
	if (opts.kubeconfig || !inClusterEnv(env)) return null;
	if (kubeconfigFiles(opts).files.length > 0) return null;
	return loadInClusterConfig({
		env,
		...(opts.serviceAccountDir ? { serviceAccountDir: opts.serviceAccountDir } : {}),
	});
}

/**
 * Loads the cluster connection like kubectl: --kubeconfig FILE, else the KUBECONFIG list
 * (merged, first wins), else ~/.kube/config, else in a pod the service account (in-cluster);
 * --context (with corralContexts: a Corral context first, see corral-context.ts), else
 * current-context; namespace -n, else (in-cluster) the service account's,
 * else $CORRAL_NAMESPACE, else corral-vms, as in Corral (a kubeconfig context's namespace is
 * not used). Throws PoolError('usage') naming the problem and the fix.
 */
export async function loadKube(opts: KubeOptions = {}): Promise<PoolClient> {
	const inCluster = inClusterFallback(opts);
	const kc = inCluster?.config ?? loadKubeConfig(opts);
	const wanted =
		opts.corralContexts && !inCluster
			? resolveContext(
					opts.context,
					kc.getContexts().map((c) => c.name),
					opts.corralEnv ?? opts.env ?? process.env,
				).name
			: opts.context;
	const ctx = selectContext(kc, wanted);
	const cluster = kc.getCurrentCluster();
	if (!cluster?.server)
		throw new PoolError(
			'usage',
			`cluster "${ctx.cluster}" of context "${ctx.name}" has no server: set one with kubectl config set-cluster`,
		);
	let server: URL;
	try {
		server = new URL(cluster.server);
	} catch {
		throw new PoolError(
			'usage',
			`cluster "${ctx.cluster}" has an invalid server URL; fix it with kubectl config set-cluster`,
		);
	}
	if (server.protocol === 'http:' && !cluster.skipTLSVerify) {
		// kubectl talks plain http without further ado; client-node refuses unless told that
		// there is no TLS to verify. There is none, so say so.
		(cluster as { skipTLSVerify: boolean }).skipTLSVerify = true;
	}
	const user = kc.getCurrentUser();
	registerCredentials(user);
	takeOverCredentials(kc, user);
	const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
	return {
		config: kc,
		contextName: ctx.name,
		server: cluster.server,
		namespace:
			(opts.namespaceIsFallback ? undefined : opts.namespace) ||
			inCluster?.namespace ||
			opts.namespace ||
			defaultNamespace(opts.env ?? process.env),
		...lazyClients(kc, requestTimeoutMs),
		readJson: (path, query = {}, signal) =>
			getJson(kc, path, query, requestTimeoutMs, signal, { retry: true }),
		requestTimeoutMs,
	};
}

/**
 * The typed API clients, made on their first call: their module (client-node's generated
 * APIs and models, four fifths of its code) loads only when a command calls one, so the
 * console's first frame, drawn from raw lists, never waits for it. Every method of a typed
 * client returns a promise, so one that waits for the module first is the same to callers.
 */
function lazyClients(kc: KubeConfig, timeoutMs: number): TypedClients {
	let made: Promise<TypedClients> | undefined;
	const load = () => {
		made ??= import('./typed-clients.js').then((m) => m.makeTypedClients(kc, timeoutMs));
		return made;
	};
	const lazy = <K extends keyof TypedClients>(key: K): TypedClients[K] =>
		new Proxy(
			{},
			{
				get(_target, method) {
					// not a thenable: `await kube.core` must not call anything
					if (typeof method !== 'string' || method === 'then') return undefined;
					return (...args: unknown[]) =>
						load().then((clients) => {
							const client = clients[key] as unknown as Record<
								string,
								(...a: unknown[]) => Promise<unknown>
							>;
							return client[method]!(...args);
						});
				},
			},
		) as TypedClients[K];
	return {
		core: lazy('core'),
		coordination: lazy('coordination'),
		authorization: lazy('authorization'),
	};
}
