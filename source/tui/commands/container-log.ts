/** L: the selected member's container log, followed live in the log view (Esc returns). */

import { selectedRow } from '../store/store.js';
import { defineCommand, memberRow } from './command.js';

declare module './command.js' {
	interface CommandIds {
		ContainerLog: 'container-log';
	}
}

export const containerLog = defineCommand({
	name: 'ContainerLog',
	id: 'container-log',
	match: [{ char: 'L' }],
	keys: 'L',
	hint: 'container log',
	description: "the selected member's container log, followed live (Esc returns)",
	group: 'Views',
	order: 240,
	screens: ['members', 'details'],
	mutating: false,
	// the API's pods/log
	needs: [{ verb: 'get', resource: 'pods', subresource: 'log' }],
	available(state, screen) {
		const row = memberRow(state, screen);
		if (!row) return 'select a member first';
		return row.podPhase === '' ? `${row.name} has no pod, so no container log` : null;
	},
	run(ctx) {
		const s = ctx.store.getState();
		const row = selectedRow(s);
		if (!row) return;
		s.setPodLog({
			member: row.name,
			previous: false,
			phase: 'connecting',
			lines: [],
			dropped: 0,
			error: null,
		});
		s.setScreen('logs');
		ctx.ops.followLog(row.name, false);
	},
});
