/** PgDn: a page down, of rows or of text. */

import { defineCommand, MOVE_KEY, moveOrScroll } from './command.js';

declare module './command.js' {
	interface CommandIds {
		PageDown: 'page-down';
	}
}

export const pageDown = defineCommand({
	name: 'PageDown',
	id: 'page-down',
	match: [{ key: 'pageDown' }],
	keys: 'PgDn',
	hint: 'page down',
	description: 'page down',
	...MOVE_KEY,
	order: 60,
	run: (ctx) => moveOrScroll(ctx, 'page'),
});
