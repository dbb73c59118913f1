/** [: in details, the previous member. */

import { defineCommand } from './command.js';
import { stepAvailable, stepMember } from './member-step.js';

export const prevMember = defineCommand({
	name: 'PrevMember',
	id: 'prev-member',
	match: [{ char: '[' }],
	keys: '[',
	hint: 'prev',
	description: 'in details: the previous member, in the members screen order',
	group: 'Move',
	screens: ['details'],
	mutating: false,
	available: (_state, screen) => stepAvailable(screen),
	run: (ctx) => stepMember(ctx, -1),
});
