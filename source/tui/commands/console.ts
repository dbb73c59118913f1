/** s: open a shell in the selected member (the runner hands the terminal to kubectl exec). */

import { selectedRow } from '../store/store.js';
import { defineCommand, memberRow } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Console: 'console';
	}
}

export const shellConsole = defineCommand({
	name: 'Console',
	id: 'console',
	match: [{ char: 's' }],
	keys: 's',
	hint: 'console',
	description: 'open a shell in the selected member (kubectl exec)',
	group: 'Act on the cluster',
	order: 220,
	screens: ['members', 'details'],
	mutating: true,
	// kubectl exec reads the pod, then opens the exec.
	needs: [
		{ verb: 'get', resource: 'pods' },
		{ verb: 'create', resource: 'pods', subresource: 'exec' },
	],
	available(state, screen) {
		const row = memberRow(state, screen);
		if (!row) return 'select a member first';
		if (row.podPhase !== 'Running' || (row.state !== 'Ready' && row.state !== 'Starting'))
			return `${row.name} has no running pod (state ${row.state}); a console needs one`;
		return null;
	},
	run(ctx) {
		const s = ctx.store.getState();
		const row = selectedRow(s);
		if (!row) return;
		s.setRequest({ kind: 'console', member: row.name });
		ctx.exit();
	},
});
