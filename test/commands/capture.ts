/** Running the CLI in-process with captured output. */

import type { CommandIo } from '../../source/commands/io.js';
import { runCli } from '../../source/commands/main.js';

/** What a run printed and how it ended. */
export interface RunResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Options of a captured run. */
export interface RunOptions {
	tty?: boolean;
	signal?: AbortSignal;
	engine?: CommandIo['engine'];
	env?: Record<string, string | undefined>;
	/** Where the connection is looked for (the environment kubectl reads, the service account files). */
	connection?: CommandIo['connection'];
}

/**
 * The environment of a run unless told: no colour, and the test cluster's pool namespace
 * (corral on the simulated cluster; the fresh namespace startTestCluster set on the real one).
 */
export function defaultEnv(): Record<string, string> {
	return { NO_COLOR: '1', CORRAL_NAMESPACE: process.env.CORRAL_NAMESPACE ?? 'corral' };
}

/** Runs `ctpool <argv>` in this process and captures stdout and stderr. */
export async function ctpool(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
	let stdout = '';
	let stderr = '';
	const io: CommandIo = {
		stdout: { write: (s: string) => (stdout += s), isTTY: opts.tty ?? false },
		stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty ?? false },
		env: opts.env ?? defaultEnv(),
	};
	if (opts.signal) io.signal = opts.signal;
	if (opts.connection) io.connection = opts.connection;
	io.engine = { deleteTimeoutMs: 20_000, ...(opts.engine ?? {}) };
	const code = await runCli(argv, io);
	return { code, stdout, stderr };
}
