/** G: the last row, or the end of the text (where the log view follows). */

import { ALL_SCREENS, defineCommand, scrollsText } from './command.js';

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
	group: 'Move',
	order: 40,
	screens: ALL_SCREENS,
	// G follows the log; elsewhere moving is in help
	bar: ['logs'],
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		if (scrollsText(s.screen)) s.setScroll(-1);
		else s.moveTo('bottom');
	},
});
