/** G: the last row, or the end of the text (where the log view follows). */

import { defineCommand, MOVE_KEY, moveOrScroll } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Bottom: 'bottom';
	}
}

export const bottom = defineCommand({
	name: 'Bottom',
	id: 'bottom',
	match: [{ key: 'end' }, { char: 'G' }],
	keys: 'G',
	hint: 'bottom',
	description: 'last row, or the end of the text (the log view follows from there)',
	...MOVE_KEY,
	order: 40,
	// G follows the log; elsewhere moving is in help
	bar: ['logs'],
	run: (ctx) => moveOrScroll(ctx, 'bottom'),
});
