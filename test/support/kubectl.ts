/**
 * Running the real kubectl in tests: each kubeconfig gets its own discovery cache dir, and
 * kubectl tests skip with a printed reason when kubectl is missing, except under CI=true,
 * where a missing kubectl fails.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { describe, it } from 'vitest';
import { Changes, WaitAborted, waitFor } from './wait.js';

/** The kubectl on the PATH, or undefined. */
export function kubectlPath(): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(delimiter)) {
		if (!dir) continue;
		const p = join(dir, process.platform === 'win32' ? 'kubectl.exe' : 'kubectl');
		if (existsSync(p)) return p;
	}
	return undefined;
}

let probed: boolean | undefined;

/** Whether a working kubectl is on the PATH. */
export function kubectlAvailable(): boolean {
	if (probed === undefined) {
		const p = kubectlPath();
		probed =
			p !== undefined &&
			spawnSync(p, ['version', '--client'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
	}
	return probed;
}

/**
 * A describe block for kubectl tests. Without kubectl: skipped with a printed reason, or,
 * under CI=true, a failing test saying kubectl is missing.
 */
export function describeKubectl(name: string, fn: () => void): void {
	describeWithClient(name, kubectlAvailable(), 'kubectl is not on the PATH', fn);
}

/**
 * A describe block that needs an independent client (kubectl, the Python client). When the
 * client is missing: skipped with the reason printed, or, under CI=true, a failing test
 * naming what is missing.
 */
export function describeWithClient(
	name: string,
	available: boolean,
	missing: string,
	fn: () => void,
): void {
	if (available) {
		describe(name, fn);
		return;
	}
	if (process.env.CI === 'true') {
		describe(name, () => {
			it(`needs its client (CI=true makes a missing client a failure): ${missing}`, () => {
				throw new Error(`${missing}; CI requires it for these tests`);
			});
		});
		return;
	}
	process.stdout.write(`[skip] ${name}: ${missing}\n`);
	// Reason: without the client there is no independent check of the simulated cluster;
	// outside CI (above) that skips, saying so (and in its name), rather than failing.
	describe.skip(`${name} (skipped: ${missing})`, fn);
}

/** Options of a kubectl run. */
export interface KubectlOptions {
	/** The kubeconfig file. */
	kubeconfig: string;
	/** Discovery cache dir (default: `kube-cache` beside the kubeconfig, created on demand). */
	cacheDir?: string;
	/** Kill it after this long (ms, default 60,000). */
	timeoutMs?: number;
	/** Text to write to its stdin. */
	input?: string;
	/** Extra environment. */
	env?: Record<string, string>;
}

/** What a kubectl run printed and how it ended. */
export interface KubectlResult {
	stdout: string;
	stderr: string;
	/** Exit code (null when killed by a signal). */
	code: number | null;
}

function commandLine(
	args: string[],
	opts: KubectlOptions,
): { bin: string; argv: string[]; env: NodeJS.ProcessEnv } {
	const bin = kubectlPath();
	if (!bin) throw new Error('kubectl is not on the PATH');
	const cacheDir = opts.cacheDir ?? join(dirname(opts.kubeconfig), 'kube-cache');
	mkdirSync(cacheDir, { recursive: true });
	const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
	delete env.KUBECONFIG;
	env.KUBECACHEDIR = cacheDir;
	return {
		bin,
		argv: ['--kubeconfig', opts.kubeconfig, '--cache-dir', cacheDir, ...args],
		env,
	};
}

/** Runs kubectl with the given arguments through the kubeconfig; never rejects on a non-zero exit. */
export function kubectl(args: string[], opts: KubectlOptions): Promise<KubectlResult> {
	const { bin, argv, env } = commandLine(args, opts);
	return new Promise((resolve, reject) => {
		const child = spawn(bin, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.setEncoding('utf8').on('data', (d: string) => {
			stdout += d;
		});
		child.stderr.setEncoding('utf8').on('data', (d: string) => {
			stderr += d;
		});
		const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ stdout, stderr, code });
		});
		child.stdin.end(opts.input ?? '');
	});
}

/** A long-running kubectl (`get -w`): read its output as it comes, then stop it. */
export interface KubectlProcess {
	child: ChildProcess;
	/** Everything printed on stdout so far. */
	stdout(): string;
	/** Everything printed on stderr so far. */
	stderr(): string;
	/** Resolves once stdout matches (rejects on timeout or exit first). */
	waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
	/** Kills it and waits for it to exit. */
	stop(): Promise<void>;
}

/** Starts kubectl and returns a handle to follow its output. */
export function spawnKubectl(args: string[], opts: KubectlOptions): KubectlProcess {
	const { bin, argv, env } = commandLine(args, opts);
	const child = spawn(bin, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	let err = '';
	const changes = new Changes();
	const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
	child.stdout?.setEncoding('utf8').on('data', (d: string) => {
		out += d;
		changes.emit();
	});
	child.stderr?.setEncoding('utf8').on('data', (d: string) => {
		err += d;
	});
	const killer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
	child.once('close', () => {
		clearTimeout(killer);
		changes.emit();
	});
	return {
		child,
		stdout: () => out,
		stderr: () => err,
		waitFor(pattern, timeoutMs = 20_000) {
			return waitFor(
				() => {
					const m = out.match(pattern);
					if (m) return m;
					if (child.exitCode !== null || child.signalCode !== null)
						throw new WaitAborted(`kubectl exited before printing ${pattern}: ${out}${err}`);
					return null;
				},
				{
					what: String(pattern),
					timeoutMs,
					wakeOn: changes,
					detail: () => `stdout: ${out}; stderr: ${err}`,
				},
			);
		},
		async stop() {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
			await exited;
		},
	};
}
