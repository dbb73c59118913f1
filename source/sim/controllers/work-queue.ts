/**
 * A deduplicating work queue: store listeners only add keys; the work runs on the next turn
 * of the event loop, outside the store's write, in one batch.
 */

import type { ControllerErrors } from './controller-errors.js';

/** Keys to process, handled in a batch on the next turn of the event loop. */
export class WorkQueue {
	private pending = new Set<string>();
	private immediate: NodeJS.Immediate | null = null;
	private stopped = false;

	constructor(
		private readonly handle: (keys: string[]) => void,
		private readonly errors: ControllerErrors,
		private readonly where: string,
	) {}

	/** Adds a key (once) and makes sure a batch runs. */
	add(key: string): void {
		if (this.stopped) return;
		this.pending.add(key);
		this.kick();
	}

	/** Makes sure a batch runs even when no key is pending (the handler has other work). */
	kick(): void {
		if (this.stopped || this.immediate) return;
		this.immediate = setImmediate(() => {
			this.immediate = null;
			const keys = [...this.pending];
			this.pending = new Set();
			this.errors.guard(this.where, () => this.handle(keys));
		});
	}

	/** Drops pending work and stops for good. */
	stop(): void {
		this.stopped = true;
		if (this.immediate) clearImmediate(this.immediate);
		this.immediate = null;
		this.pending.clear();
	}
}
