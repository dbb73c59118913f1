/** ↑ k: up a row, or up a line of the text. */

import { defineCommand, MOVE_KEY, moveOrScroll } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Up: 'up';
	}
}

export const up = defineCommand({
	name: 'Up',
	id: 'up',
	match: [{ key: 'up' }, { char: 'k' }],
	keys: '↑ k',
	hint: 'up',
	description: 'move up (scrolls details, help and the log view)',
	...MOVE_KEY,
	order: 10,
	run: (ctx) => moveOrScroll(ctx, -1),
});
