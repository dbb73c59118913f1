/** The live reconcile loop's action. */

import type { StoreContext } from './context.js';
import type { LoopState } from './loop-state.js';

/** The loop's actions. */
export interface LoopActions {
	/** Updates the live loop. */
	setLoop(loop: Partial<LoopState>): void;
}

/** The loop's actions over a store. */
export function loopActions({ set, get }: StoreContext): LoopActions {
	return {
		setLoop(loop) {
			set({ loop: { ...get().loop, ...loop } });
		},
	};
}
