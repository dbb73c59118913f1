/** /: the members or audit filter, or the pools screen's find (each opens its prompt). */

import { defineCommand } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Filter: 'filter';
	}
}

export const filter = defineCommand({
	name: 'Filter',
	id: 'filter',
	match: [{ char: '/' }],
	keys: '/',
	hint: 'filter',
	barHint: { pools: 'find' },
	description: 'members: filter (regex; ! inverts) · pools: find · audit: pool: member: …',
	group: 'Find, sort, mark',
	order: 110,
	screens: ['pools', 'members', 'audit'],
	mutating: false,
	available: (_state, screen) =>
		screen === 'members' || screen === 'audit' || screen === 'pools'
			? null
			: 'the filter works on the members and audit screens, the find on the pools screen',
	run(ctx) {
		const s = ctx.store.getState();
		if (s.screen === 'pools') s.setPrompt({ kind: 'find', value: s.find });
		else
			s.setPrompt({
				kind: 'filter',
				value: s.screen === 'audit' ? s.auditView.filter : s.filter,
			});
	},
});
