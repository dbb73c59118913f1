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
