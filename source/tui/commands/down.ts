/** ↓ j: down a row, or down a line of the text. */

import { ALL_SCREENS, defineCommand, scrollBy, scrollsText } from './command.js';

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
	group: 'Move',
	order: 20,
	screens: ALL_SCREENS,
	bar: [],
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		if (scrollsText(s.screen)) scrollBy(ctx, 1);
		else s.move(1);
	},
});
