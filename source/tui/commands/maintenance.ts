/** m: maintenance on (asks a reason) or off, of the selected member or every marked one. */

import { MAINTENANCE_NEEDS } from '../../pool/operation-needs.js';
import { selectedRow } from '../store/store.js';
import {
	actsOnMarks,
	bulkMembers,
	defaultMaintenanceReason,
	isInMaintenance,
	openBulk,
} from './bulk.js';
import { busyBlock, defineCommand, memberRow, targetPool } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Maintenance: 'maintenance';
	}
}

export const maintenance = defineCommand({
	name: 'Maintenance',
	id: 'maintenance',
	match: [{ char: 'm' }],
	keys: 'm',
	hint: 'maint',
	description: 'maintenance on (asks a reason) or off: the selected or marked members',
	group: 'Act on the cluster',
	order: 210,
	screens: ['members', 'details'],
	mutating: true,
	// Only the pool's PVC is marked: it is read (and its labels checked) first.
	needs: MAINTENANCE_NEEDS,
	available(state, screen) {
		if (actsOnMarks(state, screen)) return busyBlock(state);
		const row = memberRow(state, screen);
		if (!row) return 'select a member first';
		if (row.state === 'Missing') return `${row.name} does not exist yet (no PVC to mark)`;
		return busyBlock(state);
	},
	run(ctx) {
		const s = ctx.store.getState();
		if (actsOnMarks(s)) {
			const anyOff = bulkMembers(s, 'maintenance-on').some(
				(m) => !m.skip && !isInMaintenance(s, m.name),
			);
			return openBulk(s, anyOff ? 'maintenance-on' : 'maintenance-off');
		}
		const row = selectedRow(s);
		const pool = targetPool(s);
		if (!row || !pool) return;
		if (row.maintenance) ctx.ops.maintenance(pool, row.name, false);
		else s.setPrompt({ kind: 'maintenance', member: row.name, value: defaultMaintenanceReason(s) });
	},
});
