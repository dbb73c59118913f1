/** [: in details, the previous member. */

import { defineCommand } from './command.js';
import { stepAvailable, stepMember } from './member-step.js';

declare module './command.js' {
	interface CommandIds {
		PrevMember: 'prev-member';
	}
}

export const prevMember = defineCommand({
	name: 'PrevMember',
	id: 'prev-member',
	match: [{ char: '[' }],
	keys: '[',
	hint: 'prev',
	description: 'in details: the previous member, in the members screen order',
	group: 'Move',
	order: 70,
	screens: ['details'],
	mutating: false,
	available: (_state, screen) => stepAvailable(screen),
	run: (ctx) => stepMember(ctx, -1),
});
