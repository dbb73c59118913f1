/** Space, while narrating (ctpool --demo --narrate): pause or resume the narration. */

import { defineCommand } from './command.js';
import { NARRATION_KEY } from './narrating.js';

declare module './command.js' {
	interface CommandIds {
		NarratePause: 'narrate-pause';
	}
}

export const narratePause = defineCommand({
	name: 'NarratePause',
	id: 'narrate-pause',
	match: [{ char: ' ' }],
	keys: 'Space',
	hint: 'pause',
	description:
		'narrated demo (--demo --narrate): pause or resume the narration (Space marks members otherwise)',
	...NARRATION_KEY,
	order: 272,
	run(ctx) {
		const s = ctx.store.getState();
		const paused = s.narration?.control.toggle();
		if (paused !== undefined)
			s.setStatus(
				paused ? 'narration paused: Space resumes, n tells the next' : 'narration goes on',
			);
	},
});
