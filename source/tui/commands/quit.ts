/** q, Ctrl-C: quit, or first let the running operation finish. */

import { sanitize } from '../../text/sanitize.js';
import type { ConsoleStore } from '../store/store.js';
import { ALL_SCREENS, defineCommand } from './command.js';

/**
 * Quits, or, while an operation runs, asks to quit once it has finished (the status line
 * says so); a second quit abandons it.
 */
export function requestQuit(store: ConsoleStore, exit: () => void): void {
	const s = store.getState();
	if (s.busy && s.request?.kind !== 'finish') {
		s.setRequest({ kind: 'finish' });
		s.setStatus(
			`finishing ${sanitize(s.busy.label)} before quitting; q or Ctrl-C again abandons it (the next reconcile then repairs the member)`,
		);
		return;
	}
	s.setRequest({ kind: s.busy ? 'abandon' : 'quit' });
	exit();
}

declare module './command.js' {
	interface CommandIds {
		Quit: 'quit';
	}
}

export const quit = defineCommand({
	name: 'Quit',
	id: 'quit',
	match: [{ ctrl: 'c' }, { char: 'q' }],
	keys: 'q Ctrl-C',
	barKeys: 'q',
	hint: 'quit',
	description: 'quit',
	group: 'Views',
	order: 300,
	screens: ALL_SCREENS,
	mutating: false,
	run: (ctx) => requestQuit(ctx.store, ctx.exit),
});
