/** p: in the log view, the previous (crashed) container's log, or back to the current one. */

import { defineCommand } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Previous: 'previous';
	}
}

export const previous = defineCommand({
	name: 'Previous',
	id: 'previous',
	match: [{ char: 'p' }],
	keys: 'p',
	hint: 'previous',
	description: "log view: the previous (crashed) container's log, or the current one",
	group: 'Views',
	order: 250,
	screens: ['logs'],
	mutating: false,
	available: (_state, screen) => (screen === 'logs' ? null : 'in the log view (L opens it)'),
	run(ctx) {
		const s = ctx.store.getState();
		if (!s.podLog) return;
		s.setScroll(-1);
		ctx.ops.followLog(s.podLog.member, !s.podLog.previous);
	},
});
