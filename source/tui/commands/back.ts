/** Esc: back, clearing the filter (or find) first; each screen knows where back is. */

import type { Screen } from '../store/store.js';
import { ALL_SCREENS, type ConsoleApi, defineCommand, type KeyContext } from './command.js';

/** What Esc does on each screen (a prompt's Esc is the prompt's). */
const BACK: Record<Screen, (s: ConsoleApi, ctx: KeyContext) => void> = {
	pools: (s) => {
		if (s.find) s.setFind('');
	},
	members: (s) => {
		if (s.filter) s.setFilter('');
		else {
			s.clearTraceMarks();
			s.setScreen('pools');
		}
	},
	details: (s) => s.setScreen('members'),
	audit: (s) => {
		if (s.auditView.filter) s.setAuditFilter('');
		else s.setScreen(s.auditView.back);
	},
	trace: (s) => s.setScreen(s.traceView.back),
	logs: (s, ctx) => {
		ctx.ops.stopLog();
		s.setPodLog(null);
		s.setScreen(s.logReturn);
	},
	help: (s) => s.setScreen(s.helpReturn),
	text: (s) => s.setScreen(s.textView?.back ?? 'pools'),
};

declare module './command.js' {
	interface CommandIds {
		Back: 'back';
	}
}

export const back = defineCommand({
	name: 'Back',
	id: 'back',
	match: [{ key: 'escape' }],
	keys: 'Esc',
	hint: 'back',
	description: 'back, clearing the filter first; cancels a prompt, dismisses a message',
	group: 'Move',
	order: 100,
	screens: ALL_SCREENS,
	mutating: false,
	run(ctx) {
		const s = ctx.store.getState();
		BACK[s.screen](s, ctx);
	},
});
