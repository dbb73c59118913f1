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

/** Runs `ctpool <argv>` in this process and captures stdout and stderr. */
export async function ctpool(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
	let stdout = '';
	let stderr = '';
	const io: CommandIo = {
		stdout: { write: (s: string) => (stdout += s), isTTY: opts.tty ?? false },
		stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty ?? false },
		env: opts.env ?? { NO_COLOR: '1', CORRAL_NAMESPACE: 'corral' },
	};
	if (opts.signal) io.signal = opts.signal;
	if (opts.connection) io.connection = opts.connection;
	io.engine = { deleteTimeoutMs: 20_000, ...(opts.engine ?? {}) };
	const code = await runCli(argv, io);
	return { code, stdout, stderr };
}
