/** How a command ends on an error: `ctpool: <message>` on stderr and the exit code. */

import { PoolError } from '../pool/errors.js';
import { sanitize } from '../text/sanitize.js';
import { type CommandIo, println } from './io.js';

/** Exit code of a successful command. */
export const EXIT_OK = 0;
/** Exit code when the operation failed. */
export const EXIT_FAILED = 1;
/** Exit code of a usage error (bad flags or arguments; nothing was changed). */
export const EXIT_USAGE = 2;

/** The exit code for an error: 2 for bad input from the caller, 1 for everything else. */
export function exitCodeOf(err: unknown): number {
	if (err instanceof PoolError && (err.kind === 'usage' || err.kind === 'reserved-identity'))
		return EXIT_USAGE;
	return EXIT_FAILED;
}

/** Prints `ctpool: <message>` (sanitised) and returns the exit code. */
export function report(io: CommandIo, err: unknown): number {
	let message: string;
	if (err instanceof PoolError) message = err.message;
	else if (err instanceof Error) message = `unexpected error: ${err.message}`;
	else message = `unexpected error: ${String(err)}`;
	println(io.stderr, `ctpool: ${sanitize(message)}`);
	return exitCodeOf(err);
}

/** A usage error. */
export function usageError(command: string, message: string): PoolError {
	return new PoolError('usage', `${message}; see ctpool${command ? ` ${command}` : ''} --help`);
}
