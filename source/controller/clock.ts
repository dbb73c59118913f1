/** The time and timers a controller runs on: the system's, or a test's fake clock. */

/** A timer handle, as the clock's setTimeout returns it. */
export type TimerHandle = { readonly id?: unknown } | NodeJS.Timeout;

/** Time and timers, injectable so tests can move time by hand. */
export interface Clock {
	/** Milliseconds since the epoch. */
	now(): number;
	/** Calls fn after ms (never keeps the process alive on its own). */
	setTimeout(fn: () => void, ms: number): TimerHandle;
	/** Cancels a timer of this clock. */
	clearTimeout(handle: TimerHandle): void;
}

/** The longest delay setTimeout honours; longer ones would fire at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** The system clock: Date.now and unref'd timers. */
export const systemClock: Clock = {
	now: () => Date.now(),
	setTimeout(fn, ms) {
		const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_DELAY_MS));
		t.unref?.();
		return t;
	},
	clearTimeout(handle) {
		clearTimeout(handle as NodeJS.Timeout);
	},
};
