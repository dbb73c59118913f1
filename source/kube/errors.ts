/**
 * Errors of the Kubernetes API made readable: ApiException bodies parsed into ApiFailure,
 * network failures and deadlines as code 0, and every message scrubbed of secrets.
 */
import { PoolError } from '../pool/errors.js';
import { tierWith } from '../pool/permissions.js';
import { sanitize } from '../text/sanitize.js';

/** A failed API call: the HTTP status (0 = the cluster was not reached), its reason and message. */
export interface ApiFailure {
	code: number;
	reason: string;
	message: string;
}

/** What a call tried to do, so a message can name it. */
export interface ErrorSubject {
	verb: string;
	resource: string;
	namespace?: string;
	name?: string;
}

/** A request that got no complete answer before its deadline. */
export class KubeTimeoutError extends Error {
	/** Node's code for a timed-out operation. */
	readonly code = 'ETIMEDOUT';
	/** The deadline that passed (ms). */
	readonly timeoutMs: number;
	constructor(timeoutMs: number, what?: string) {
		super(`no answer from the cluster within ${seconds(timeoutMs)}${what ? ` (${what})` : ''}`);
		this.name = 'KubeTimeoutError';
		this.timeoutMs = timeoutMs;
	}
}

/** An HTTP answer that was not a success, from ctpool's own requests (list and watch). */
export class KubeHttpError extends Error {
	/** The HTTP status. */
	readonly code: number;
	/** The raw body, usually a Kubernetes Status as JSON text. */
	readonly body: string;
	constructor(code: number, body: string) {
		super(`HTTP ${code}`);
		this.name = 'KubeHttpError';
		this.code = code;
		this.body = body;
	}
}

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

const REASON_BY_CODE: Record<number, string> = {
	400: 'BadRequest',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'NotFound',
	405: 'MethodNotAllowed',
	409: 'Conflict',
	410: 'Expired',
	415: 'UnsupportedMediaType',
	422: 'Invalid',
	429: 'TooManyRequests',
	500: 'InternalError',
	503: 'ServiceUnavailable',
	504: 'Timeout',
};

const NETWORK_REASONS: Record<string, [string, string]> = {
	ECONNREFUSED: ['ConnectionRefused', 'connection refused'],
	ECONNRESET: ['ConnectionReset', 'connection reset'],
	EPIPE: ['ConnectionReset', 'connection closed'],
	ETIMEDOUT: ['Timeout', 'connection timed out'],
	ENOTFOUND: ['HostNotFound', 'host not found'],
	EAI_AGAIN: ['HostNotFound', 'host name lookup failed'],
	EHOSTUNREACH: ['Unreachable', 'host unreachable'],
	ENETUNREACH: ['Unreachable', 'network unreachable'],
	ECONNABORTED: ['ConnectionReset', 'connection aborted'],
	UND_ERR_SOCKET: ['ConnectionReset', 'connection closed'],
	ERR_STREAM_PREMATURE_CLOSE: ['ConnectionReset', 'connection closed early'],
	DEPTH_ZERO_SELF_SIGNED_CERT: ['TLS', 'the server certificate is self-signed'],
	SELF_SIGNED_CERT_IN_CHAIN: ['TLS', 'the server certificate chain is self-signed'],
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: ['TLS', 'the server certificate cannot be verified'],
	CERT_HAS_EXPIRED: ['TLS', 'the server certificate has expired'],
	ERR_TLS_CERT_ALTNAME_INVALID: ['TLS', 'the server certificate does not match its name'],
};

function record(value: unknown): Record<string, unknown> | null {
	return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}

function parseStatus(body: unknown): Record<string, unknown> | null {
	if (typeof body === 'string') {
		if (!body.trimStart().startsWith('{')) return null;
		try {
			return record(JSON.parse(body));
		} catch {
			return null;
		}
	}
	if (Buffer.isBuffer(body)) return parseStatus(body.toString('utf8'));
	return record(body);
}

function statusFailure(code: number, body: unknown): ApiFailure {
	const status = parseStatus(body);
	const reason =
		typeof status?.reason === 'string' && status.reason
			? status.reason
			: (REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'Unknown'));
	let message = typeof status?.message === 'string' ? status.message : '';
	if (!message && typeof body === 'string' && !status) message = body.trim().slice(0, 300);
	const causes = record(status?.details)?.causes;
	if (Array.isArray(causes) && causes.length > 0 && code === 422 && !message.includes(':')) {
		const texts = causes
			.map((c) => record(c))
			.filter((c) => c !== null)
			.map((c) => [c.field, c.message].filter((s) => typeof s === 'string' && s).join(': '));
		if (texts.length > 0) message = `${message}: ${texts.join('; ')}`;
	}
	return { code, reason, message: redact(message) };
}

/**
 * The failure an error from client-node or ctpool's own requests stands for, or null when it
 * is not an API or network error (a bug, a PoolError). Code 0 means the cluster was not reached.
 */
export function apiFailure(err: unknown): ApiFailure | null {
	const e = record(err);
	if (!e) return null;
	if (err instanceof KubeTimeoutError) return { code: 0, reason: 'Timeout', message: err.message };
	const code = e.code;
	// client-node's ApiException, ctpool's KubeHttpError, and the Watch class's statusCode.
	if (typeof code === 'number' && code >= 100 && ('body' in e || e.name === 'KubeHttpError'))
		return statusFailure(code, e.body);
	if (typeof e.statusCode === 'number' && e.statusCode >= 100)
		return statusFailure(e.statusCode, e.body);
	if (typeof code === 'number' && code >= 100) return statusFailure(code, undefined);
	// Network failures: node-fetch's FetchError carries the system error code.
	const sys =
		typeof e.code === 'string' ? e.code : typeof e.errno === 'string' ? e.errno : undefined;
	const cause = record(e.cause);
	const sysCode = sys ?? (typeof cause?.code === 'string' ? cause.code : undefined);
	if (sysCode && NETWORK_REASONS[sysCode]) {
		const [reason, text] = NETWORK_REASONS[sysCode];
		const lead =
			reason === 'ConnectionReset'
				? 'lost the connection to the cluster'
				: 'cannot reach the cluster';
		return { code: 0, reason, message: `${lead}: ${text}${where(e)}` };
	}
	if (e.name === 'AbortError' || sysCode === 'ABORT_ERR')
		return { code: 0, reason: 'Aborted', message: 'the request was cancelled' };
	if (e.name === 'FetchError' || e.type === 'system')
		return {
			code: 0,
			reason: 'Unreachable',
			message: `cannot reach the cluster: ${redact(sysCode ?? String(e.message ?? 'network error'))}`,
		};
	return null;
}

function where(e: Record<string, unknown>): string {
	const address = typeof e.address === 'string' ? e.address : undefined;
	const port = typeof e.port === 'number' ? e.port : undefined;
	if (address) return ` (${address}${port ? `:${port}` : ''})`;
	const m =
		typeof e.message === 'string' ? /\b(?:connect|read|write) E[A-Z]+ (\S+)/.exec(e.message) : null;
	return m?.[1] ? ` (${redact(m[1])})` : '';
}

/** Whether the error is a 404 NotFound. */
export function isNotFound(err: unknown): boolean {
	return apiFailure(err)?.code === 404;
}

/** Whether the error is a 403 Forbidden. */
export function isForbidden(err: unknown): boolean {
	return apiFailure(err)?.code === 403;
}

/** Whether the error is a 409 Conflict (a stale resourceVersion or a failed precondition). */
export function isConflict(err: unknown): boolean {
	const f = apiFailure(err);
	return f?.code === 409 && f.reason !== 'AlreadyExists';
}

/** Whether the error is a 409 AlreadyExists (a create lost to another writer). */
export function isAlreadyExists(err: unknown): boolean {
	const f = apiFailure(err);
	return f?.code === 409 && f.reason === 'AlreadyExists';
}

/** Whether the error says the cluster was not reached (network, deadline). */
export function isUnreachable(err: unknown): boolean {
	return apiFailure(err)?.code === 0;
}

function subjectText(what: ErrorSubject): string {
	const target = what.name ? `${what.resource}/${what.name}` : what.resource;
	return `${what.verb} ${target}${what.namespace ? ` in namespace ${what.namespace}` : ''}`;
}

/**
 * The sentence for a missing permission: which verb on which resource, what to ask for, and
 * the smallest tier of `ctpool rbac` that has it.
 */
export function forbiddenText(what: ErrorSubject): string {
	const tier = tierWith(what.resource, what.verb);
	const ns = what.namespace ? ` in namespace ${what.namespace}` : '';
	const how = tier
		? `; the ${tier} tier has it: ctpool rbac --tier ${tier}${what.namespace ? ` -n ${what.namespace}` : ''}`
		: '';
	return `forbidden: cannot ${what.verb} ${what.resource}${ns} (ask for the "${what.verb}" permission on ${what.resource}${how})`;
}

/**
 * One line for a person: what failed and why. A 403 names the verb, resource and namespace
 * and the permission to ask for. Never contains tokens, keys, passwords or kubeconfig text.
 */
export function describeError(err: unknown, what?: ErrorSubject): string {
	return sanitize(redact(describeRaw(err, what)));
}

function describeRaw(err: unknown, what?: ErrorSubject): string {
	if (err instanceof PoolError) return err.message;
	const f = apiFailure(err);
	if (!f) {
		const message = err instanceof Error ? err.message : String(err);
		return what ? `${subjectText(what)}: ${message}` : message;
	}
	if (f.code === 403) {
		if (what) return forbiddenText(what);
		return f.message ? `forbidden: ${f.message}` : 'forbidden: the cluster refused the request';
	}
	if (f.code === 401)
		return 'unauthorized: the cluster rejected the credentials (log in again or fix the user in the kubeconfig)';
	const prefix = what ? `${subjectText(what)}: ` : '';
	if (f.code === 0) return `${prefix}${f.message}`;
	if (f.code >= 500)
		return `${prefix}server error (HTTP ${f.code}${f.message ? `: ${f.message}` : ''})`;
	if (f.message) return `${prefix}${f.message}`;
	return `${prefix}${f.reason} (HTTP ${f.code})`;
}

// ---- redaction -------------------------------------------------------------------------

const knownSecrets = new Set<string>();

/** Registers a secret (a token, password, key) so redact() removes it wherever it appears. */
export function registerSecret(secret: string | undefined | null): void {
	if (typeof secret === 'string' && secret.length >= 6) knownSecrets.add(secret);
}

const R = '[redacted]';
const PATTERNS: Array<[RegExp, string]> = [
	// PEM blocks (keys, certificates).
	[/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, R],
	// Authorization header values.
	[/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=:-]+/gi, `$1 ${R}`],
	// key: value or key=value for secret-ish keys (kubeconfig fields, query parameters, JSON).
	[
		/((?:access[_-]?token|refresh[_-]?token|id[_-]?token|token|password|passwd|secret|client[_-]?key[_-]?data|client[_-]?certificate[_-]?data|certificate[_-]?authority[_-]?data|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi,
		`$1${R}`,
	],
	// JSON Web Tokens.
	[/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, R],
	// Well-known token shapes: OpenShift, EKS, GKE.
	[/\b(?:sha256~[A-Za-z0-9_-]{20,}|k8s-aws-v1\.[A-Za-z0-9_-]+|ya29\.[A-Za-z0-9._-]+)/g, R],
	// user:password@ in URLs.
	[/(\/\/)[^/\s:@]+:[^/\s@]+@/g, `$1${R}@`],
];

/** Long runs of token characters with letters and digits: likely a secret unless a digest. */
const LONG_TOKEN = /(?<![A-Za-z0-9_+=.~-])(sha256:|sha512:|@)?([A-Za-z0-9_+=.~-]{32,})/g;

/**
 * The text with anything secret-like replaced by "[redacted]": bearer and basic credentials,
 * JWTs, PEM blocks, kubeconfig secret fields, URL passwords, long token-like strings and
 * every secret registered by loadKube. Use it on every error text that is printed.
 */
export function redact(text: string): string {
	let out = text;
	for (const secret of knownSecrets) {
		if (out.includes(secret)) out = out.split(secret).join(R);
	}
	for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
	out = out.replace(LONG_TOKEN, (whole, digest: string | undefined, run: string) => {
		if (digest) return whole;
		if (!/[0-9]/.test(run) || !/[A-Za-z]/.test(run)) return whole;
		if (/^[a-z0-9.-]+$/.test(run) && /[.-]/.test(run)) return whole; // DNS names, uids
		return R;
	});
	return out;
}
