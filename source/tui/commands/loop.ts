/** a: the live reconcile loop on or off. */

import { defineCommand, targetPool } from './command.js';
import { RECONCILE_NEEDS } from './reconcile.js';

declare module './command.js' {
	interface CommandIds {
		Loop: 'loop';
	}
}

export const loop = defineCommand({
	name: 'Loop',
	id: 'loop',
	match: [{ char: 'a' }],
	keys: 'a',
	hint: 'loop',
	description: 'live reconcile loop on/off (interval and watch-triggered)',
	group: 'Act on the cluster',
	order: 200,
	screens: ['pools', 'members', 'details'],
	mutating: true,
	needs: RECONCILE_NEEDS,
	available: (state, screen) =>
		targetPool(state, screen) || state.loop.on ? null : 'select a pool first',
	run(ctx) {
		ctx.ops.toggleLoop(targetPool(ctx.store.getState()));
	},
});
