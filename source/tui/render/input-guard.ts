/**
 * A guard on Ink's input events. Ink 6.8 (the last 6.x) throws `Cannot read properties of
 * undefined (reading 'startsWith')` in its useInput for some CSI sequences typed or pasted
 * (ESC[31m, ESC[0m, ESC[5m, ESC[6n...), which ends the app. Fixed only in Ink 7, which needs
 * Node 22. The guard runs each input event and drops one on which Ink's own key parsing
 * throws: such a sequence is no key the console knows. Errors of our own handlers still throw.
 */

import type { EventEmitter } from 'node:events';

const GUARDED = Symbol('ctpool.input-guard');

/** The message of Ink 6.8's input-parsing TypeError. */
const INK_PARSE_MESSAGE = "Cannot read properties of undefined (reading 'startsWith')";

/**
 * True when err was thrown by Ink's input hook itself: its top frame is in use-input (the
 * installed package), or, in the bundled CLI where Ink's files are gone from the stack, it
 * is the very TypeError Ink 6.8's key parsing throws.
 */
export function isInkInputParseError(err: unknown): boolean {
	if (!(err instanceof TypeError)) return false;
	if (err.message === INK_PARSE_MESSAGE) return true;
	const frames = (err.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));
	// build/hooks/use-input.js, or src/hooks/use-input.ts where source maps rewrite stacks
	return /[\\/]ink[\\/](?:build|src)[\\/]hooks[\\/]use-input\.[jt]s\b/.test(frames[0] ?? '');
}

/** Makes the emitter drop an 'input' event on which Ink's input parsing throws; idempotent. */
export function guardInputEvents(emitter: EventEmitter | undefined): void {
	if (!emitter || (emitter as unknown as Record<symbol, boolean>)[GUARDED]) return;
	(emitter as unknown as Record<symbol, boolean>)[GUARDED] = true;
	const emit = emitter.emit.bind(emitter);
	emitter.emit = (event: string | symbol, ...args: unknown[]): boolean => {
		if (event !== 'input') return emit(event, ...args);
		try {
			return emit(event, ...args);
		} catch (err) {
			if (isInkInputParseError(err)) return false;
			throw err;
		}
	};
}
