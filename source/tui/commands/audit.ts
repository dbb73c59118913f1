/** e: the audit screen on what the screen shows: every shown pool, the pool, the member. */

import { selectedRow } from '../store/store.js';
import { defineCommand } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Audit: 'audit';
	}
}

export const audit = defineCommand({
	name: 'Audit',
	id: 'audit',
	match: [{ char: 'e' }],
	keys: 'e',
	hint: 'audit',
	description:
		'audit: who did what (from the cluster Events) to the shown pools, this pool or this member',
	group: 'Views',
	order: 260,
	screens: ['pools', 'members', 'details'],
	mutating: false,
	run(ctx) {
		const s = ctx.store.getState();
		if (s.screen === 'members' && s.pool) s.openAudit({ pool: s.pool });
		else if (s.screen === 'details' && s.pool) {
			const row = selectedRow(s);
			s.openAudit(row ? { pool: s.pool, member: row.name } : { pool: s.pool });
		} else if (s.screen === 'pools') s.openAudit({});
	},
});
