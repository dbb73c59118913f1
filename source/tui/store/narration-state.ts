/**
 * The narration's slice of the console state (`ctpool --demo --narrate`): the sentence being
 * told, the last few told, whether the narration is paused and how many sentences wait, and
 * the control the narration keys drive (Space: pause or resume, n: the next one). Null when
 * the console does not narrate.
 */

import type { NarrationLine } from '../../engine/narration.js';

/** What the console drives of a narration (the demo's pacer). */
export interface NarrationControl {
	/** Pauses when telling, resumes when paused; returns whether paused now. */
	toggle(): boolean;
	/** Tells the next waiting sentence now; false when none waits. */
	next(): boolean;
}

/** A narration as the pane shows it. */
export interface NarrationView {
	/** The sentence being told, or null before the first. */
	current: NarrationLine | null;
	/** The sentences told before it, oldest first (at most NARRATION_TOLD_MAX). */
	told: readonly NarrationLine[];
	/** How many sentences wait to be told. */
	waiting: number;
	paused: boolean;
	/** What drives it. */
	control: NarrationControl;
}

/** The most sentences told that the console keeps (the pane shows the last that fit). */
export const NARRATION_TOLD_MAX = 20;

/** The narration's slice. */
export interface NarrationSlice {
	/** The narration, when the console narrates (the narrated demo), else null. */
	narration: NarrationView | null;
}

/** No narration. */
export function initialNarrationState(): NarrationSlice {
	return { narration: null };
}
