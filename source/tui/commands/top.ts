/** g: the first row, or the top of the text. */

import { defineCommand, MOVE_KEY, moveOrScroll } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Top: 'top';
	}
}

export const top = defineCommand({
	name: 'Top',
	id: 'top',
	match: [{ key: 'home' }, { char: 'g' }],
	keys: 'g',
	hint: 'top',
	description: 'first row, or the top of the text',
	...MOVE_KEY,
	order: 30,
	run: (ctx) => moveOrScroll(ctx, 'top'),
});
