/** r: reconcile the pool now. */

import type { AccessNeed } from '../../kube/access-review.js';
import { LEASES, READ_NEEDS } from '../../pool/operation-needs.js';
import { busyBlock, defineCommand, targetPool } from './command.js';

/** What a reconcile reads and writes (the live loop needs the same). */
export const RECONCILE_NEEDS: readonly AccessNeed[] = [
	...READ_NEEDS,
	{ verb: 'get', resource: 'pods' },
	{ verb: 'get', resource: 'persistentvolumeclaims' },
	{ verb: 'create', resource: 'pods' },
	{ verb: 'delete', resource: 'pods' },
	{ verb: 'create', resource: 'persistentvolumeclaims' },
	{ verb: 'delete', resource: 'persistentvolumeclaims' },
	{ verb: 'create', ...LEASES },
	{ verb: 'delete', ...LEASES },
];

declare module './command.js' {
	interface CommandIds {
		Reconcile: 'reconcile';
	}
}

export const reconcile = defineCommand({
	name: 'Reconcile',
	id: 'reconcile',
	match: [{ char: 'r' }],
	keys: 'r',
	hint: 'reconcile',
	description: 'reconcile the pool now',
	group: 'Act on the cluster',
	order: 190,
	screens: ['pools', 'members', 'details'],
	mutating: true,
	needs: RECONCILE_NEEDS,
	available: (state, screen) =>
		targetPool(state, screen) ? busyBlock(state) : 'select a pool first',
	run(ctx) {
		const pool = targetPool(ctx.store.getState());
		if (pool) ctx.ops.reconcile(pool);
	},
});
