/**
 * The built reconciler as a process (`dist/cli.js reconcile ... --watch`), for the tests and
 * the benchmark: its stderr, its /metrics, its exit. Imports nothing from vitest.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './built-cli.js';
import { waitFor } from './wait.js';

/** One sample of the Prometheus text: the value of name with exactly these labels, or undefined. */
export function sample(
	text: string,
	name: string,
	labels: Record<string, string> = {},
): number | undefined {
	for (const line of text.split('\n')) {
		const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
		if (!m || m[1] !== name) continue;
		const got: Record<string, string> = {};
		for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[l[1]!] = l[2]!;
		if (
			Object.keys(got).length === Object.keys(labels).length &&
			Object.entries(labels).every(([k, v]) => got[k] === v)
		)
			return Number(m[3]);
	}
	return undefined;
}

/** A running reconciler process. */
export interface ReconcilerProcess {
	child: ChildProcess;
	/** Everything it wrote on stderr so far. */
	stderr(): string;
	/** Everything it wrote on stdout so far (the steps it took). */
	stdout(): string;
	/** Its /metrics text (it was started with --metrics-addr 127.0.0.1:0). */
	metrics(): Promise<string>;
	/** Its election identity, from its first leader election line. */
	identity(): Promise<string>;
	/** Resolves with its exit code. */
	exited: Promise<number | null>;
}

/**
 * Starts `ctpool reconcile <args> --watch --metrics-addr 127.0.0.1:0` (the built binary) with
 * a kubeconfig, and waits until it serves its metrics.
 */
export async function startReconciler(
	args: readonly string[],
	kubeconfig: string,
	opts: { env?: Record<string, string>; cli?: string } = {},
): Promise<ReconcilerProcess> {
	const child = spawn(
		process.execPath,
		[
			opts.cli ?? CLI,
			'reconcile',
			...args,
			'--watch',
			'--metrics-addr',
			'127.0.0.1:0',
			'--kubeconfig',
			kubeconfig,
		],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...opts.env },
		},
	);
	let stderr = '';
	let stdout = '';
	child.stdout?.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr?.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const exited = new Promise<number | null>((resolve) =>
		child.once('exit', (code) => resolve(code)),
	);
	const base = await waitFor(
		() => {
			if (child.exitCode !== null) throw new Error(`the reconciler exited: ${stderr}`);
			return /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1];
		},
		{ what: 'the metrics address on stderr', timeoutMs: 30_000, detail: () => stderr },
	);
	return {
		child,
		stderr: () => stderr,
		stdout: () => stdout,
		metrics: async () => (await fetch(`${base}/metrics`)).text(),
		identity: () =>
			waitFor(() => / on Lease \S+ as (\S+):/.exec(stderr)?.[1], {
				what: 'the election identity on stderr',
				detail: () => stderr,
			}),
		exited,
	};
}
