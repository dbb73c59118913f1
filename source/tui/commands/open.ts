/** Enter: open the pool (or the find's hit), or the member's details. */

import { selectedRow } from '../store/store.js';
import { defineCommand, targetPool } from './command.js';
import { openHit } from './open-hit.js';

declare module './command.js' {
	interface CommandIds {
		Open: 'open';
	}
}

export const open = defineCommand({
	name: 'Open',
	id: 'open',
	match: [{ key: 'return' }],
	keys: 'Enter',
	hint: 'open',
	description: 'open the pool, or the member details (long lines wrap)',
	group: 'Move',
	order: 90,
	screens: ['pools', 'members'],
	mutating: false,
	run(ctx) {
		const s = ctx.store.getState();
		if (s.screen === 'pools' && s.find) openHit(ctx);
		else if (s.screen === 'pools') {
			const pool = targetPool(s);
			if (pool) s.openPool(pool);
		} else if (s.screen === 'members') {
			const row = selectedRow(s);
			if (!row) return;
			s.selectMember(row.name);
			s.setScreen('details');
			ctx.ops.loadEvents(row.name);
		}
	},
});
