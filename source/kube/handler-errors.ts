/**
 * Errors thrown by the code a watch hands its objects to. Such an error is a bug or an object
 * nobody expected; it must never end the process (a reconciler that dies on one Event dies
 * again after every restart). It is told in one line naming the object, through a sink the
 * process may set (standard error by default), and the watch goes on.
 */

import { bounded } from '../text/sanitize.js';

/** Where handler errors are told: one line, no newline at its end. */
export type HandlerErrorSink = (line: string) => void;

let sink: HandlerErrorSink = (line) => {
	process.stderr.write(`${line}\n`);
};

/** Sets where handler errors are told; returns the sink it replaced. */
export function setHandlerErrorSink(next: HandlerErrorSink): HandlerErrorSink {
	const before = sink;
	sink = next;
	return before;
}

/** The parts of an object that name it. */
interface Named {
	kind?: unknown;
	metadata?: { namespace?: unknown; name?: unknown } | null;
}

/** `Event corral/x.1` for an object, bounded and inert. */
export function objectName(o: unknown): string {
	if (!o || typeof o !== 'object') return 'an object with no name';
	const n = o as Named;
	const meta = n.metadata && typeof n.metadata === 'object' ? n.metadata : {};
	const kind = typeof n.kind === 'string' ? n.kind : 'object';
	const ns = typeof meta.namespace === 'string' ? `${meta.namespace}/` : '';
	const name = typeof meta.name === 'string' ? meta.name : '?';
	return bounded(`${kind} ${ns}${name}`, 300);
}

/** The one line of a handler error about `what` (an object's name, a batch). */
export function handlerErrorLine(what: string, err: unknown): string {
	const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
	return `ctpool: handling ${bounded(what, 400)} failed, skipped it: ${bounded(text, 400)}`;
}

/** Tells a handler error in one line; never throws. */
export function reportHandlerError(what: string, err: unknown): void {
	try {
		sink(handlerErrorLine(what, err));
	} catch {
		// nowhere to tell it
	}
}

/** Runs a handler; an error it throws is told in one line about `what`, not thrown. */
export function guardHandler(what: () => string, fn: () => void): void {
	try {
		fn();
	} catch (err) {
		let name = 'an object';
		try {
			name = what();
		} catch {
			// keep the plain name
		}
		reportHandlerError(name, err);
	}
}

/** The exit code of a command ended by an error nothing handled (sysexits' EX_SOFTWARE). */
export const EXIT_INTERNAL = 70;

/** Whether an error nothing handled leaves the process running (a watching reconciler). */
let keepRunning = false;

/**
 * Makes an error nothing handled (an uncaught exception, an unhandled rejection) a line told
 * and passed over, not the end of the process: for a long-running reconciler, whose every
 * object and timer must not be able to stop it. Set once the watch starts.
 */
export function keepRunningOnUncaughtErrors(on = true): void {
	keepRunning = on;
}

/** The one line of an error nothing handled: its name, message and where it came from, never a stack. */
export function uncaughtErrorLine(kind: string, err: unknown, goingOn: boolean): string {
	let text: string;
	try {
		text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
	} catch {
		text = 'an error that cannot be shown';
	}
	const at = err instanceof Error ? firstFrame(err.stack) : '';
	const then = goingOn ? 'skipped it, still running' : 'stopping';
	return `ctpool: internal error (${kind}${at ? ` in ${bounded(at, 120)}` : ''}), ${then}: ${bounded(text, 400)}`;
}

/** The function name of a stack's first frame (`reconcile`), without file paths or source text. */
function firstFrame(stack: string | undefined): string {
	const line = stack?.split('\n').find((l) => /^\s+at /.test(l));
	const m = line ? /^\s+at (?:async )?([\w$.<>[\] ]+?) \(/.exec(line) : null;
	return m?.[1] ?? '';
}

/** Where the crash guard writes and how it ends the process (a test gives its own). */
export interface CrashGuardHost {
	on(event: 'uncaughtException' | 'unhandledRejection', fn: (err: unknown) => void): unknown;
	write(line: string): void;
	exit(code: number): void;
}

/**
 * Installs the process's last line of defence: an uncaught exception or unhandled rejection
 * is told in one line (never a stack, never the bundle's source line Node would print); the
 * process goes on in watch mode (keepRunningOnUncaughtErrors), else exits with EXIT_INTERNAL.
 */
export function installCrashGuard(host: CrashGuardHost = processHost): void {
	const handle = (kind: string) => (err: unknown) => {
		const goingOn = keepRunning;
		try {
			host.write(`${uncaughtErrorLine(kind, err, goingOn)}\n`);
		} catch {
			// nowhere to tell it
		}
		if (!goingOn) host.exit(EXIT_INTERNAL);
	};
	host.on('uncaughtException', handle('uncaught exception'));
	host.on('unhandledRejection', handle('unhandled rejection'));
}

const processHost: CrashGuardHost = {
	on: (event, fn) => process.on(event, fn),
	write: (line) => process.stderr.write(line),
	exit: (code) => process.exit(code),
};
