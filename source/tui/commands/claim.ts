/** c: claim a free member of the pool for an identity (the claim prompt asks which). */

import { LEASES, READ_NEEDS } from '../../pool/operation-needs.js';
import { busyBlock, defineCommand, targetPool } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Claim: 'claim';
	}
}

export const claim = defineCommand({
	name: 'Claim',
	id: 'claim',
	match: [{ char: 'c' }],
	keys: 'c',
	hint: 'claim',
	description: 'claim a free member for an identity',
	group: 'Act on the cluster',
	order: 170,
	screens: ['pools', 'members', 'details'],
	mutating: true,
	needs: [
		...READ_NEEDS,
		{ verb: 'create', ...LEASES },
		{ verb: 'update', ...LEASES },
		{ verb: 'create', resource: 'pods' },
	],
	available: (state, screen) =>
		targetPool(state, screen) ? busyBlock(state) : 'select a pool first',
	run(ctx) {
		const s = ctx.store.getState();
		s.setPrompt({ kind: 'claim', value: s.session.identity, error: null });
	},
});
