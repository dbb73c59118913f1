/** The built binary for the safety tests: where it is, whether it is built, and running it. */

import { spawn } from 'node:child_process';
import { CLI } from '../support/built-cli.js';

/** What a command printed and how it ended. */
export interface Ran {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs the built binary with args and an environment; never a shell. */
export function runBinary(
	args: string[],
	env: Record<string, string | undefined> = {},
	timeoutMs = 60_000,
): Promise<Ran> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [CLI, ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...env },
		});
		let stdout = '';
		let stderr = '';
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on('data', (d: Buffer) => {
			stderr += d.toString();
		});
		child.on('error', reject);
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}
