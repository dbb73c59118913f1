/** Running the real kubectl for baselines: its own discovery cache dir, timed from spawn to exit. */

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { wallMs } from './clock.js';

/** The kubectl on the PATH, or undefined. */
export function kubectlPath(): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(delimiter)) {
		if (!dir) continue;
		const p = join(dir, 'kubectl');
		if (existsSync(p)) return p;
	}
	return undefined;
}

/** kubectl's client version line, or null when it does not run. */
export function kubectlVersion(bin: string): string | null {
	const r = spawnSync(bin, ['version', '--client'], { encoding: 'utf8', timeout: 30_000 });
	if (r.status !== 0) return null;
	return (r.stdout ?? '').split('\n')[0]?.trim() ?? null;
}

/** Where kubectl runs: its binary, the kubeconfig and its own cache dir. */
export interface KubectlTarget {
	bin: string;
	kubeconfig: string;
	cacheDir: string;
}

/** The arguments that point kubectl at the target (before the command's own). */
export function kubectlArgs(t: KubectlTarget, args: string[]): string[] {
	return ['--kubeconfig', t.kubeconfig, '--cache-dir', t.cacheDir, ...args];
}

/** The environment kubectl runs in (no KUBECONFIG from the caller). */
export function kubectlEnv(t: KubectlTarget): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, KUBECACHEDIR: t.cacheDir };
	delete env.KUBECONFIG;
	return env;
}

/** How a timed run ended. */
export interface TimedRun {
	code: number | null;
	stdout: string;
	stderr: string;
	/** From spawn to exit (ms). */
	ms: number;
}

/** Runs a program to its end, timed from spawn to exit; output is piped and kept. */
export function timedRun(
	file: string,
	args: string[],
	opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<TimedRun> {
	return new Promise((resolve, reject) => {
		const t0 = wallMs();
		const child = spawn(file, args, {
			env: opts.env ?? process.env,
			cwd: opts.cwd ?? process.cwd(),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		child.stdout.on('data', (d: Buffer) => out.push(d));
		child.stderr.on('data', (d: Buffer) => err.push(d));
		const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
		child.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({
				code,
				stdout: Buffer.concat(out).toString('utf8'),
				stderr: Buffer.concat(err).toString('utf8'),
				ms: wallMs() - t0,
			});
		});
	});
}

/** Runs kubectl against the target, timed. */
export function runKubectl(
	t: KubectlTarget,
	args: string[],
	timeoutMs?: number,
): Promise<TimedRun> {
	return timedRun(t.bin, kubectlArgs(t, args), {
		env: kubectlEnv(t),
		...(timeoutMs ? { timeoutMs } : {}),
	});
}
