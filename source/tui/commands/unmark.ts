/** U: unmark every member. */

import { defineCommand } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Unmark: 'unmark';
	}
}

export const unmark = defineCommand({
	name: 'Unmark',
	id: 'unmark',
	match: [{ char: 'U' }],
	keys: 'U',
	hint: 'unmark',
	description: 'unmark every member',
	group: 'Find, sort, mark',
	order: 160,
	screens: ['members'],
	bar: [],
	mutating: false,
	available: (state) => (state.marks.size > 0 ? null : 'nothing is marked'),
	run(ctx) {
		const s = ctx.store.getState();
		const n = s.marks.size;
		s.clearMarks();
		s.setStatus(n > 0 ? `unmarked ${n}` : 'nothing is marked');
	},
});
