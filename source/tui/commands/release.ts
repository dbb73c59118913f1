/** x: release --force the selected member, or every marked one (one confirmation each way). */

import { RELEASE_NEEDS } from '../../pool/operation-needs.js';
import { selectedRow } from '../store/store.js';
import { actsOnMarks, openBulk } from './bulk.js';
import { busyBlock, defineCommand, memberRow } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Release: 'release';
	}
}

export const release = defineCommand({
	name: 'Release',
	id: 'release',
	match: [{ char: 'x' }],
	keys: 'x',
	hint: 'release',
	description: 'release --force the selected or every marked member (destroys its data)',
	group: 'Act on the cluster',
	order: 180,
	screens: ['members', 'details'],
	mutating: true,
	needs: RELEASE_NEEDS,
	available(state, screen) {
		// with marks, x acts on every marked member (one confirmation lists them)
		if (actsOnMarks(state, screen)) return busyBlock(state);
		const row = memberRow(state, screen);
		if (!row) return 'select a member first';
		if (!row.hasLease) return `${row.name} has no claim; there is nothing to release`;
		return busyBlock(state);
	},
	run(ctx) {
		const s = ctx.store.getState();
		if (actsOnMarks(s)) return openBulk(s, 'release');
		const row = selectedRow(s);
		if (row)
			s.setPrompt({
				kind: 'release',
				member: row.name,
				holder: row.leaseHolder,
				...(row.leaseProblem ? { stranded: row.leaseProblem } : {}),
			});
	},
});
