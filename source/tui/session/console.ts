/**
 * Handing the terminal to `kubectl exec -it` and taking it back. The app is unmounted
 * before this runs (the store survives); here input is stopped at the source so that no key
 * is read by both, the terminal is given back in its normal state, kubectl runs with the
 * terminal inherited, and whatever was typed meanwhile is drained before the app mounts again.
 */

import { spawn } from 'node:child_process';
import { CONTAINER_NAME, ctConsoleCommand } from '../../pool/index.js';
import { sanitize } from '../../text/sanitize.js';

/** Which member to open a console in, and how kubectl reaches the cluster. */
export interface ConsoleTarget {
	member: string;
	namespace: string;
	/** --context for kubectl (the context the console uses). */
	context?: string;
	/** --kubeconfig for kubectl; absent: kubectl finds the same files ctpool did (KUBECONFIG, ~/.kube/config). */
	kubeconfig?: string;
	/** A privileged member keeps its root file system on the PVC: the console is a chroot into it. */
	privileged: boolean;
}

/** The shell a member's console runs: the contract's (and Corral's `ct console`) command. */
export function consoleCommand(privileged: boolean): string[] {
	return ctConsoleCommand(privileged);
}

/** kubectl's arguments for the console of a member. */
export function consoleArgs(t: ConsoleTarget): string[] {
	const args = ['exec', '-it', t.member, '-n', t.namespace, '-c', CONTAINER_NAME];
	if (t.context) args.push('--context', t.context);
	if (t.kubeconfig) args.push('--kubeconfig', t.kubeconfig);
	return [...args, '--', ...consoleCommand(t.privileged)];
}

/** How a console session ended. */
export interface ConsoleOutcome {
	/** kubectl's exit code (null when it did not run or was killed). */
	code: number | null;
	/** Why kubectl could not run at all (not installed, ...). */
	error: string | null;
	/** The last line kubectl wrote to stderr (sanitised), e.g. `pods "desk-3" not found`. */
	lastError: string;
}

/** Where the console runs: the terminal streams, and the kubectl to run. */
export interface ConsoleIo {
	stdin: NodeJS.ReadStream;
	stdout: NodeJS.WriteStream;
	stderr?: NodeJS.WriteStream;
	/** The kubectl binary (default `kubectl` on the PATH). */
	kubectl?: string;
	env?: NodeJS.ProcessEnv;
}

/** Stops reading the terminal: Node stops polling stdin once it is paused with no reader. */
export async function stopInput(stdin: NodeJS.ReadStream): Promise<void> {
	// Ink has removed its 'readable' listener; the stream leaves its listening state a tick later
	await new Promise((resolve) => setImmediate(resolve));
	if (stdin.isTTY) stdin.setRawMode?.(false);
	stdin.pause();
	await new Promise((resolve) => setImmediate(resolve));
}

/** Drops what was typed and buffered while the console ran, so it never reaches the app. */
export function drainInput(stdin: NodeJS.ReadStream): number {
	let dropped = 0;
	for (let chunk = stdin.read(); chunk !== null; chunk = stdin.read())
		dropped += (chunk as Buffer | string).length;
	return dropped;
}

/**
 * Runs `kubectl exec -it` with the terminal inherited and waits until it ends. Never throws:
 * a kubectl that cannot start, or that fails, is reported in the outcome.
 */
export function runKubectlConsole(target: ConsoleTarget, io: ConsoleIo): Promise<ConsoleOutcome> {
	return new Promise((resolve) => {
		let tail = '';
		let settled = false;
		const ignoreInterrupt = () => {};
		// Ctrl-C before kubectl takes the terminal must not end ctpool
		process.on('SIGINT', ignoreInterrupt);
		const done = (outcome: ConsoleOutcome) => {
			if (settled) return;
			settled = true;
			process.off('SIGINT', ignoreInterrupt);
			resolve(outcome);
		};
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn(io.kubectl ?? 'kubectl', consoleArgs(target), {
				stdio: ['inherit', 'inherit', 'pipe'],
				env: io.env ?? process.env,
			});
		} catch (err) {
			done({ code: null, error: (err as Error).message, lastError: '' });
			return;
		}
		child.stderr?.on('data', (chunk: Buffer) => {
			(io.stderr ?? process.stderr).write(chunk);
			tail = (tail + chunk.toString('utf8')).slice(-2000);
		});
		child.on('error', (err: NodeJS.ErrnoException) => {
			const error =
				err.code === 'ENOENT'
					? `kubectl is not installed or not on the PATH (${io.kubectl ?? 'kubectl'}); install kubectl to open a console`
					: `kubectl could not start: ${err.message}`;
			done({ code: null, error, lastError: '' });
		});
		child.on('close', (code) => {
			const last =
				tail
					.split(/\r?\n/)
					.map((l) => sanitize(l).trim())
					.filter(Boolean)
					.at(-1) ?? '';
			done({ code, error: null, lastError: last });
		});
	});
}

/** A one-line account of a console session for the log. */
export function describeConsoleOutcome(
	member: string,
	o: ConsoleOutcome,
): { ok: boolean; message: string } {
	if (o.error) return { ok: false, message: `console on ${member} did not open: ${o.error}` };
	if (o.code === 0) return { ok: true, message: `console on ${member} closed` };
	if (o.lastError && !/command terminated with non-zero exit code/.test(o.lastError))
		return {
			ok: false,
			message: `console on ${member} failed (exit ${o.code ?? '?'}): ${o.lastError}`,
		};
	return { ok: true, message: `console on ${member} closed (exit code ${o.code ?? '?'})` };
}
