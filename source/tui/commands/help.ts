/** ?: this help, or back from it. */

import { ALL_SCREENS, defineCommand } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Help: 'help';
	}
}

export const help = defineCommand({
	name: 'Help',
	id: 'help',
	match: [{ char: '?' }],
	keys: '?',
	hint: 'help',
	description: 'this help',
	group: 'Views',
	order: 290,
	screens: ALL_SCREENS,
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		s.setScreen(s.screen === 'help' ? s.helpReturn : 'help');
	},
});
