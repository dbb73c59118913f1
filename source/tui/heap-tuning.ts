/**
 * Keeps the console's heap close to what it holds. Under churn every frame Ink draws allocates
 * megabytes, and some of it reaches the old generation; V8 lets that grow to about three times
 * the live heap before it collects. A smaller growing factor (and one full collection once the
 * pool is loaded, so the limit follows the live heap from then on) keeps the peak resident size
 * far lower for a few per cent of a core.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How far (per cent) the old generation may grow past the live heap before a full collection. */
export const HEAP_GROWING_PERCENT = 40;

/** Sets V8's heap growing factor for this process (from the next full collection on). */
export function tuneHeap(): void {
	setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** Runs one full collection now, so the heap limit follows the live heap (false if it cannot). */
export function collectOnce(): boolean {
	try {
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as unknown;
		if (typeof gc !== 'function') return false;
		(gc as () => void)();
		return true;
	} catch {
		return false;
	}
}
