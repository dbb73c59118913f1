/** PgUp: a page up, of rows or of text. */

import { defineCommand, MOVE_KEY, moveOrScroll } from './command.js';

declare module './command.js' {
	interface CommandIds {
		PageUp: 'page-up';
	}
}

export const pageUp = defineCommand({
	name: 'PageUp',
	id: 'page-up',
	match: [{ key: 'pageUp' }],
	keys: 'PgUp',
	hint: 'page up',
	description: 'page up',
	...MOVE_KEY,
	order: 50,
	run: (ctx) => moveOrScroll(ctx, '-page'),
});
