/** l: show or hide the activity log. */

import { defineCommand, TABLE_SCREENS } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Log: 'log';
	}
}

export const log = defineCommand({
	name: 'Log',
	id: 'log',
	match: [{ char: 'l' }],
	keys: 'l',
	hint: 'log',
	description: 'show or hide the activity log',
	group: 'Views',
	order: 230,
	screens: [...TABLE_SCREENS, 'logs', 'text'],
	mutating: false,
	keepsStatus: true,
	run: (ctx) => ctx.store.getState().toggleLog(),
});
