/** PgDn: a page down, of rows or of text. */

import { ALL_SCREENS, defineCommand, page, scrollBy, scrollsText } from './command.js';

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
	group: 'Move',
	order: 60,
	screens: ALL_SCREENS,
	bar: [],
	mutating: false,
	keepsStatus: true,
	run(ctx) {
		const s = ctx.store.getState();
		if (scrollsText(s.screen)) scrollBy(ctx, page(ctx));
		else s.move(page(ctx));
	},
});
