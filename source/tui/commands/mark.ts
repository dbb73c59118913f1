/** Space: mark or unmark the selected member (x and m then act on every mark). */

import { selectedRow } from '../store/store.js';
import { defineCommand, memberRow } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Mark: 'mark';
	}
}

export const mark = defineCommand({
	name: 'Mark',
	id: 'mark',
	match: [{ char: ' ' }],
	keys: 'Space',
	hint: 'mark',
	description: 'mark or unmark the selected member (x and m then act on every mark)',
	group: 'Find, sort, mark',
	order: 140,
	screens: ['members'],
	mutating: false,
	available(state, screen) {
		if (screen !== 'members') return 'marks are made on the members screen';
		return memberRow(state, screen) ? null : 'select a member first';
	},
	run(ctx) {
		const s = ctx.store.getState();
		const row = selectedRow(s);
		if (row) s.setMarks([row.name], !s.marks.has(row.name));
	},
});
