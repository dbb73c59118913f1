/** The narrated demo's mode (ctpool --demo --narrate): Space and n are the narration's. */

import type { ConsoleState, Screen } from '../store/store.js';
import type { CommandMode, CommandRecord } from './command.js';

/** While the console narrates, the narration's commands take their keys (Space, n). */
export const NARRATING: CommandMode = {
	name: 'narrating',
	active: (state) => state.narration !== null,
};

/** Why a narration command cannot run: the console does not narrate, or its pane is not on screen. */
export function narrationBlock(state: ConsoleState, screen: Screen): string | null {
	if (!state.narration) return 'only in the narrated demo (ctpool --demo --narrate)';
	return screen === 'pools' || screen === 'members'
		? null
		: 'the narration is told on the pools and members screens';
}

/** What the narration's keys share: their group, where they act, the mode, when they can run. */
export const NARRATION_KEY = {
	group: 'Views',
	screens: ['pools', 'members'],
	mutating: false,
	mode: NARRATING,
	available: narrationBlock,
} as const satisfies Partial<CommandRecord>;
