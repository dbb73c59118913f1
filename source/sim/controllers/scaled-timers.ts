/** Timers of the controllers: every delay scales with timeScale, and stop() clears them all. */

import type { ControllerErrors } from './controller-errors.js';

/** Named timers grouped by owner (a pod or PVC uid), so an owner's timers go at once. */
export class ScaledTimers {
	private readonly owners = new Map<string, Map<string, NodeJS.Timeout>>();
	private stopped = false;

	constructor(
		private readonly timeScale: number,
		private readonly errors: ControllerErrors,
		private readonly where: string,
	) {}

	/** Runs fn after ms × timeScale, replacing the owner's timer of that name. */
	set(owner: string, name: string, ms: number, fn: () => void): void {
		if (this.stopped) return;
		this.clear(owner, name);
		const delay = Math.max(0, Math.round(ms * this.timeScale));
		const timer = setTimeout(() => {
			const mine = this.owners.get(owner);
			mine?.delete(name);
			if (mine && mine.size === 0) this.owners.delete(owner);
			this.errors.guard(`${this.where} ${name}`, fn);
		}, delay);
		timer.unref();
		let mine = this.owners.get(owner);
		if (!mine) {
			mine = new Map();
			this.owners.set(owner, mine);
		}
		mine.set(name, timer);
	}

	/** Whether the owner has a pending timer of that name. */
	has(owner: string, name: string): boolean {
		return this.owners.get(owner)?.has(name) ?? false;
	}

	/** Clears one timer of an owner. */
	clear(owner: string, name: string): void {
		const mine = this.owners.get(owner);
		const timer = mine?.get(name);
		if (!mine || !timer) return;
		clearTimeout(timer);
		mine.delete(name);
		if (mine.size === 0) this.owners.delete(owner);
	}

	/** Clears every timer of an owner. */
	clearOwner(owner: string): void {
		const mine = this.owners.get(owner);
		if (!mine) return;
		for (const timer of mine.values()) clearTimeout(timer);
		this.owners.delete(owner);
	}

	/** How many timers are pending (for tests and benchmarks). */
	size(): number {
		let n = 0;
		for (const mine of this.owners.values()) n += mine.size;
		return n;
	}

	/** Clears every timer; later set() calls do nothing. */
	stop(): void {
		this.stopped = true;
		for (const owner of [...this.owners.keys()]) this.clearOwner(owner);
	}
}
