/** ↓ j: down a row, or down a line of the text. */

import { defineCommand, MOVE_KEY, moveOrScroll } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Down: 'down';
	}
}

export const down = defineCommand({
	name: 'Down',
	id: 'down',
	match: [{ key: 'down' }, { char: 'j' }],
	keys: '↓ j',
	hint: 'down',
	description: 'move down (scrolls details, help and the log view)',
	...MOVE_KEY,
	order: 20,
	run: (ctx) => moveOrScroll(ctx, 1),
});
