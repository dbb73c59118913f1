/** t: the pool's last plan of this console's reconcile loop, each step live, then other reconcilers' passes as their Events tell (Esc returns). */

import { defineCommand, targetPool } from './command.js';

declare module './command.js' {
	interface CommandIds {
		Trace: 'trace';
	}
}

export const trace = defineCommand({
	name: 'Trace',
	id: 'trace',
	match: [{ char: 't' }],
	keys: 't',
	hint: 'trace',
	description:
		"trace: the pool's last plan of this console's reconcile loop, each step live, then other reconcilers' passes as their Events tell (Esc returns)",
	group: 'Views',
	order: 270,
	screens: ['pools', 'members'],
	mutating: false,
	// no right: it shows what this console's own reconciles told it
	available(state, screen) {
		if (screen !== 'pools' && screen !== 'members')
			return 'the trace opens from the pools and members screens';
		return targetPool(state, screen) ? null : 'select a pool first';
	},
	run(ctx) {
		const s = ctx.store.getState();
		const pool = targetPool(s);
		if (pool) s.openTrace(pool);
	},
});
