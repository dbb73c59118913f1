/** PgUp: a page up, of rows or of text. */

import { ALL_SCREENS, defineCommand, page, scrollBy, scrollsText } from './command.js';

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
	group: 'Move',
	order: 50,
	screens: ALL_SCREENS,
	bar: [],
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		if (scrollsText(s.screen)) scrollBy(ctx, -page(ctx));
		else s.move(-page(ctx));
	},
});
