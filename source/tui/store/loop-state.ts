/** The live reconcile loop's slice of the console state. */

/** The live reconcile loop. */
export interface LoopState {
	on: boolean;
	/** The pool it reconciles (null when off). */
	pool: string | null;
	running: boolean;
	intervalMs: number;
	lastRun: number | null;
}

/** The loop's slice. */
export interface LoopSlice {
	loop: LoopState;
}

/** The loop off. */
export function initialLoopState(intervalMs: number): LoopSlice {
	return { loop: { on: false, pool: null, running: false, intervalMs, lastRun: null } };
}
