/**
 * Credentials kubectl reads and client-node 1.4 does not, or not as kubectl does: an exec
 * credential plugin run once per process (again only after its expirationTimestamp), whose
 * output never reaches an error text, and a user's `tokenFile`.
 */

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PoolError } from '../pool/errors.js';
import { registerSecret } from './errors.js';

/** A kubeconfig user's exec section (client.authentication.k8s.io). */
export interface ExecConfig {
	command: string;
	args?: string[];
	env?: Array<{ name: string; value: string }> | null;
	apiVersion?: string;
}

/** What an exec plugin handed out. */
export interface ExecCredential {
	token?: string;
	clientCertificateData?: string;
	clientKeyData?: string;
	/** When it expires (ms); null: valid for the life of the process, as kubectl has it. */
	expiresAt: number | null;
}

/** The most output of a plugin read (an ExecCredential is a few kilobytes). */
const MAX_OUTPUT = 1024 * 1024;

/** Results by plugin (command, args, env): one run per process while valid. */
const cache = new Map<string, Promise<ExecCredential>>();
/** How many times plugins were run in this process (for tests and diagnostics). */
let runs = 0;

/** How many exec plugin runs this process made. */
export function execPluginRuns(): number {
	return runs;
}

/** Forgets the cached plugin results (tests). */
export function forgetExecCredentials(): void {
	cache.clear();
}

function pluginName(exec: ExecConfig): string {
	return JSON.stringify(String(exec.command).slice(0, 200));
}

function pluginError(exec: ExecConfig, why: string): PoolError {
	return new PoolError(
		'usage',
		`the exec credential plugin ${pluginName(exec)} of the kubeconfig user ${why}; its output is not shown because it may hold credentials: run the plugin by hand to see it`,
	);
}

/** Reads an ExecCredential out of a plugin's output; never quotes the output. */
function parseCredential(exec: ExecConfig, stdout: string): ExecCredential {
	let obj: unknown;
	try {
		obj = JSON.parse(stdout);
	} catch {
		throw pluginError(exec, 'printed something that is not an ExecCredential (JSON)');
	}
	const status = (obj as { status?: Record<string, unknown> } | null)?.status;
	if (!status || typeof status !== 'object')
		throw pluginError(exec, 'printed an ExecCredential without a status');
	const str = (v: unknown): string | undefined =>
		typeof v === 'string' && v.length > 0 ? v : undefined;
	const token = str(status.token);
	const clientCertificateData = str(status.clientCertificateData);
	const clientKeyData = str(status.clientKeyData);
	registerSecret(token);
	registerSecret(clientKeyData);
	if (!token && !(clientCertificateData && clientKeyData))
		throw pluginError(
			exec,
			'printed an ExecCredential with neither a token nor a client certificate and key',
		);
	const expiry = str(status.expirationTimestamp);
	const expiresAt = expiry ? Date.parse(expiry) : null;
	const out: ExecCredential = { expiresAt: Number.isNaN(expiresAt) ? null : expiresAt };
	if (token) out.token = token;
	if (clientCertificateData) out.clientCertificateData = clientCertificateData;
	if (clientKeyData) out.clientKeyData = clientKeyData;
	return out;
}

function runPlugin(exec: ExecConfig): Promise<ExecCredential> {
	runs++;
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const e of exec.env ?? [])
		if (e && typeof e.name === 'string') env[e.name] = String(e.value ?? '');
	env.KUBERNETES_EXEC_INFO = JSON.stringify({
		apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1',
		kind: 'ExecCredential',
		spec: { interactive: false },
	});
	return new Promise((resolve, reject) => {
		let stdout = '';
		let failed: Error | null = null;
		const child = spawn(exec.command, exec.args ?? [], {
			env,
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		child.stdout.setEncoding('utf8');
		child.stdout.on('data', (d: string) => {
			if (stdout.length < MAX_OUTPUT) stdout += d;
		});
		child.on('error', (err: NodeJS.ErrnoException) => {
			failed =
				err.code === 'ENOENT'
					? pluginError(exec, 'was not found; install it, or fix users[].user.exec.command')
					: pluginError(exec, `could not be run (${err.code ?? 'error'})`);
		});
		child.on('close', (code) => {
			if (failed) return reject(failed);
			if (code !== 0) return reject(pluginError(exec, `failed (exit code ${code})`));
			try {
				resolve(parseCredential(exec, stdout));
			} catch (err) {
				reject(err);
			}
		});
	});
}

/**
 * The plugin's credential: run once per process and kept (until its expirationTimestamp,
 * when it has one); concurrent callers share one run. A failed run is not kept.
 */
export async function execCredential(exec: ExecConfig, now = Date.now()): Promise<ExecCredential> {
	const key = JSON.stringify([
		exec.command,
		exec.args ?? [],
		exec.env ?? [],
		exec.apiVersion ?? '',
	]);
	const known = cache.get(key);
	if (known) {
		const cred = await known.catch(() => null);
		if (cred && (cred.expiresAt === null || cred.expiresAt > now)) return cred;
		if (cache.get(key) !== known) return execCredential(exec, now);
	}
	const next = runPlugin(exec);
	cache.set(key, next);
	next.catch(() => {
		if (cache.get(key) === next) cache.delete(key);
	});
	return next;
}

/** How long a token file read is used before the file is read again (kubectl: one minute). */
const TOKEN_FILE_TTL_MS = 60_000;
const tokenFiles = new Map<string, { token: string; readAt: number }>();

/** The token in a kubeconfig user's tokenFile (re-read each minute, as kubectl does). */
export function tokenFromFile(file: string, now = Date.now()): string {
	const known = tokenFiles.get(file);
	if (known && now - known.readAt < TOKEN_FILE_TTL_MS) return known.token;
	let token: string;
	try {
		token = readFileSync(file, 'utf8').trim();
	} catch (err) {
		throw new PoolError(
			'usage',
			`cannot read the token file ${JSON.stringify(file.slice(0, 300))} of the kubeconfig user (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
		);
	}
	registerSecret(token);
	tokenFiles.set(file, { token, readAt: now });
	return token;
}
