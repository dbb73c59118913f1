/** The prompts' and marks' actions. */

import type { StoreContext } from './context.js';
import type { Prompt } from './prompts-state.js';

/** The prompts' and marks' actions. */
export interface PromptsActions {
	/** Opens or replaces the prompt (null closes it). */
	setPrompt(prompt: Prompt | null): void;
	/** Marks or unmarks members (true marks). */
	setMarks(names: readonly string[], on: boolean): void;
	/** Unmarks every member. */
	clearMarks(): void;
}

/** The prompts' and marks' actions over a store. */
export function promptsActions({ set, get }: StoreContext): PromptsActions {
	return {
		setPrompt(prompt) {
			set({ prompt });
		},
		setMarks(names, on) {
			const marks = new Set(get().marks);
			for (const n of names) {
				if (on) marks.add(n);
				else marks.delete(n);
			}
			set({ marks, ...(on && names.length > 0 ? { markColumn: true } : {}) });
		},
		clearMarks() {
			if (get().marks.size > 0) set({ marks: new Set() });
		},
	};
}
