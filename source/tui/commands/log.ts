/** l: show or hide the activity log. */

import { defineCommand, TABLE_SCREENS } from './command.js';

export const log = defineCommand({
	name: 'Log',
	id: 'log',
	match: [{ char: 'l' }],
	keys: 'l',
	hint: 'log',
	description: 'show or hide the activity log',
	group: 'Views',
	screens: [...TABLE_SCREENS, 'logs', 'text'],
	mutating: false,
	keepsStatus: true,
	run: (ctx) => ctx.store.getState().toggleLog(),
});
