/** The narrated demo's mode (ctpool --demo --narrate): Space and n are the narration's. */

import type { ConsoleState } from '../store/store.js';
import type { CommandMode } from './command.js';

/** While the console narrates, the narration's commands take their keys (Space, n). */
export const NARRATING: CommandMode = {
	name: 'narrating',
	active: (state) => state.narration !== null,
};

/** Why a narration command cannot run: the console does not narrate. */
export function narrationBlock(state: ConsoleState): string | null {
	return state.narration ? null : 'only in the narrated demo (ctpool --demo --narrate)';
}
