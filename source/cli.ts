/** The ctpool command: the console, the pool commands and the simulated cluster. */

import { versionLine } from './build-info.js';
import { EXIT_INTERNAL, installCrashGuard, uncaughtErrorLine } from './kube/handler-errors.js';

// An error nothing handled is one line on stderr, never a stack or the bundle's source line;
// a command then exits 70, a watching reconciler goes on (see keepRunningOnUncaughtErrors).
installCrashGuard();

// React and Ink run their production builds: the development ones cost the console about
// a third more CPU and far more memory. (Nothing imported above this line loads either.)
// The bundle has it built in; this covers running the tsc output (the bench's tools build).
const env = process.env;
env.NODE_ENV ??= 'production';

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
	// While another part holds Ctrl-C (the console hands the terminal to kubectl exec, which
	// gets the same signal), the keys are the user's, not a request to stop ctpool.
	if (process.listenerCount('SIGINT') > 1) return;
	// The first Ctrl-C stops gracefully (watch mode exits 0; a step in flight finishes its
	// cleanup); a second one stops at once.
	if (interrupted) process.exit(130);
	interrupted = true;
	const steps = ['apply', 'reconcile', 'claim', 'release', 'delete', 'maintenance'];
	if (
		process.stderr.isTTY &&
		process.argv.slice(2).some((a) => steps.includes(a)) &&
		!process.argv.includes('--watch')
	)
		process.stderr.write('\nctpool: finishing the current step (Ctrl-C again stops at once)\n');
	controller.abort();
});

// A reader that goes away (`ctpool status | head -1`): the rest of the output is dropped
// quietly, and the command stops as after a first Ctrl-C (a step in flight finishes), exiting
// with its own code, never with an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
	stream.on('error', (err: NodeJS.ErrnoException) => {
		if (err.code !== 'EPIPE') throw err;
		stream.write = ((_chunk: unknown, ...rest: unknown[]) => {
			const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
			if (done) queueMicrotask(done);
			return true;
		}) as typeof stream.write;
		controller.abort();
	});
}

/** Runs the command line: `--version` alone answers before loading it (meow, the commands). */
async function main(argv: string[]): Promise<number> {
	if (argv.length === 1 && argv[0] === '--version') {
		process.stdout.write(`${versionLine()}\n`);
		return 0;
	}
	const [{ runCli }, { processIo }] = await Promise.all([
		import('./commands/main.js'),
		import('./commands/io.js'),
	]);
	return runCli(argv, processIo(controller.signal));
}

/** Runs main and exits with its code, once buffered output has reached a pipe. */
async function run(): Promise<never> {
	let code: number;
	try {
		code = await main(process.argv.slice(2));
	} catch (err) {
		process.stderr.write(`${uncaughtErrorLine('the command', err, false)}\n`);
		code = EXIT_INTERNAL;
	}
	// Let buffered output reach a pipe before leaving; open keep-alive sockets must not hold
	// the process.
	await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
	await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
	process.exit(code);
}

// No top-level await: the bundle runs this module as a script (source/script-loader.ts).
void run();
