/** n, while narrating (ctpool --demo --narrate): tell the next sentence now. */

import { defineCommand } from './command.js';
import { NARRATION_KEY } from './narrating.js';

declare module './command.js' {
	interface CommandIds {
		NarrateNext: 'narrate-next';
	}
}

export const narrateNext = defineCommand({
	name: 'NarrateNext',
	id: 'narrate-next',
	match: [{ char: 'n' }],
	keys: 'n',
	hint: 'next line',
	description: 'narrated demo (--demo --narrate): tell the next sentence now, even while paused',
	...NARRATION_KEY,
	order: 274,
	run(ctx) {
		const s = ctx.store.getState();
		if (s.narration && !s.narration.control.next())
			s.setStatus(
				'nothing waits to be told: the demo is acting; the next sentence comes when it does',
			);
	},
});
