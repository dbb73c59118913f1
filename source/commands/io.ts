/** Where a command writes and what it knows of its terminal: the process, or a test's capture. */

import type { EngineContext } from '../engine/context.js';
import type { KubeOptions } from '../kube/config.js';

/** A stream a command writes to. */
export interface OutputStream {
	write(chunk: string): unknown;
	/** True when it is a terminal (progress and colour only then). */
	isTTY?: boolean;
	columns?: number;
}

/** Everything a command may touch outside its arguments. */
export interface CommandIo {
	stdout: OutputStream;
	stderr: OutputStream;
	env: Record<string, string | undefined>;
	/** Aborted on the first Ctrl-C: watch mode stops (exit 0), long steps stop waiting. */
	signal?: AbortSignal;
	/** Engine settings for tests (clock, delete timeout); the CLI leaves it empty. */
	engine?: Partial<Pick<EngineContext, 'now' | 'deleteTimeoutMs' | 'concurrency' | 'emit'>>;
	/**
	 * Where the connection is looked for, for tests: the environment kubectl's rules read
	 * (KUBECONFIG, HOME, KUBERNETES_SERVICE_*) and the service account's directory; the CLI
	 * leaves it empty (the process's environment, the pod's mount).
	 */
	connection?: Pick<KubeOptions, 'env' | 'serviceAccountDir'>;
}

/** The io of the running process. */
export function processIo(signal?: AbortSignal): CommandIo {
	const io: CommandIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };
	if (signal) io.signal = signal;
	return io;
}

/** Writes one line. */
export function println(out: OutputStream, line = ''): void {
	out.write(`${line}\n`);
}

/** Whether colour may be used on this stream: a terminal, no NO_COLOR, no --no-color. */
export function colorEnabled(out: OutputStream, env: CommandIo['env'], flag: boolean): boolean {
	if (!flag) return false;
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
	if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
	return Boolean(out.isTTY);
}

/**
 * A progress reporter for long waits: one line redrawn in place on a terminal, nothing when
 * stderr is piped. done() ends the line.
 */
export function progressReporter(io: CommandIo): {
	update(message: string): void;
	done(): void;
} {
	let shown = false;
	if (!io.stderr.isTTY) return { update() {}, done() {} };
	return {
		update(message: string) {
			shown = true;
			io.stderr.write(`\r\u001b[K${message}`);
		},
		done() {
			if (shown) io.stderr.write('\r\u001b[K');
			shown = false;
		},
	};
}
