/** Starting the built ctpool binary in a terminal against a simulated cluster, for end-to-end tests. */

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTerminal, type TestTerminal, terminalEnv } from '../support/terminal.js';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** The built binary (npm test builds it before the tests run). */
export const CLI = join(ROOT, 'dist', 'cli.js');

/** Throws a clear message when the binary has not been built. */
export function requireBuild(): void {
	if (!existsSync(CLI))
		throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
}

/** Options of a ctpool run in a terminal. */
export interface CtpoolRun {
	args: string[];
	kubeconfig?: string;
	/** kubectl's discovery cache dir. */
	cacheDir?: string;
	columns?: number;
	rows?: number;
	env?: NodeJS.ProcessEnv;
}

/** Runs `node dist/cli.js ARGS` in a terminal. */
export function startCtpool(run: CtpoolRun): TestTerminal {
	requireBuild();
	const env = terminalEnv({
		...(run.cacheDir ? { KUBECACHEDIR: run.cacheDir } : {}),
		...run.env,
	});
	return startTerminal(
		process.execPath,
		[CLI, ...run.args, ...(run.kubeconfig ? ['--kubeconfig', run.kubeconfig] : [])],
		{ columns: run.columns ?? 100, rows: run.rows ?? 30, env, cwd: ROOT },
	);
}

/** Quits with q and waits for the exit code. */
export async function quit(t: TestTerminal): Promise<number> {
	t.write('q');
	return t.exited;
}
