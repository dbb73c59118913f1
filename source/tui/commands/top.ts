/** g: the first row, or the top of the text. */

import { ALL_SCREENS, defineCommand, scrollsText } from './command.js';

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
	group: 'Move',
	order: 30,
	screens: ALL_SCREENS,
	bar: [],
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		if (scrollsText(s.screen)) s.setScroll(0);
		else s.moveTo('top');
	},
});
