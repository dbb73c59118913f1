/** The narration's actions: the narrated demo hands its control and each change of its pacer to the store. */

import type { NarrationLine } from '../../engine/narration.js';
import type { PacerState } from '../../engine/pacer.js';
import type { StoreContext } from './context.js';
import { NARRATION_TOLD_MAX, type NarrationControl } from './narration-state.js';

/** The narration's actions. */
export interface NarrationActions {
	/** The console narrates from now on, driven through control (nothing told yet). */
	startNarration(control: NarrationControl): void;
	/**
	 * Records a change of the narration's pacer: a new current sentence moves the one before
	 * it to the sentences told (the last NARRATION_TOLD_MAX kept).
	 */
	narrationChanged(state: PacerState<NarrationLine>): void;
}

/** The narration's actions over a store. */
export function narrationActions({ set, get }: StoreContext): NarrationActions {
	return {
		startNarration(control) {
			set({ narration: { current: null, told: [], waiting: 0, paused: false, control } });
		},
		narrationChanged(state) {
			const n = get().narration;
			if (!n) return;
			const moved = state.current !== n.current && n.current !== null;
			const told = moved
				? [...n.told, n.current as NarrationLine].slice(-NARRATION_TOLD_MAX)
				: n.told;
			if (
				!moved &&
				state.current === n.current &&
				state.waiting === n.waiting &&
				state.paused === n.paused
			)
				return;
			set({
				narration: {
					...n,
					current: state.current,
					told,
					waiting: state.waiting,
					paused: state.paused,
				},
			});
		},
	};
}
