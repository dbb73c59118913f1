/** ↑ k: up a row, or up a line of the text. */

import { ALL_SCREENS, defineCommand, scrollBy, scrollsText } from './command.js';

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
	group: 'Move',
	order: 10,
	screens: ALL_SCREENS,
	bar: [],
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		if (scrollsText(s.screen)) scrollBy(ctx, -1);
		else s.move(-1);
	},
});
