/** O: reverse the sort order. */

import { defineCommand } from './command.js';
import { sortAvailable, sortStep } from './sort-step.js';

declare module './command.js' {
	interface CommandIds {
		Reverse: 'reverse';
	}
}

export const reverse = defineCommand({
	name: 'Reverse',
	id: 'reverse',
	match: [{ char: 'O' }],
	keys: 'O',
	hint: 'reverse',
	description: 'reverse the sort order',
	group: 'Find, sort, mark',
	order: 130,
	screens: ['pools', 'members'],
	bar: [],
	mutating: false,
	available: (_state, screen) => sortAvailable(screen),
	run: (ctx) => sortStep(ctx, true),
});
