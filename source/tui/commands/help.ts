/** ?: this help, or back from it. */

import { ALL_SCREENS, defineCommand } from './command.js';

export const help = defineCommand({
	name: 'Help',
	id: 'help',
	match: [{ char: '?' }],
	keys: '?',
	hint: 'help',
	description: 'this help',
	group: 'Views',
	screens: ALL_SCREENS,
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		s.setScreen(s.screen === 'help' ? s.helpReturn : 'help');
	},
});
