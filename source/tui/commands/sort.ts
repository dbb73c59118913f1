/** o: sort by the next column. */

import { defineCommand } from './command.js';
import { sortAvailable, sortStep } from './sort-step.js';

declare module './command.js' {
	interface CommandIds {
		Sort: 'sort';
	}
}

export const sort = defineCommand({
	name: 'Sort',
	id: 'sort',
	match: [{ char: 'o' }],
	keys: 'o',
	hint: 'sort',
	description: 'sort the pools or members by the next column (kept across refreshes)',
	group: 'Find, sort, mark',
	order: 120,
	screens: ['pools', 'members'],
	mutating: false,
	available: (_state, screen) => sortAvailable(screen),
	run: (ctx) => sortStep(ctx, false),
});
