/** ]: in details, the next member. */

import { defineCommand } from './command.js';
import { stepAvailable, stepMember } from './member-step.js';

export const nextMember = defineCommand({
	name: 'NextMember',
	id: 'next-member',
	match: [{ char: ']' }],
	keys: ']',
	hint: 'next',
	description: 'in details: the next member, in the members screen order',
	group: 'Move',
	screens: ['details'],
	mutating: false,
	available: (_state, screen) => stepAvailable(screen),
	run: (ctx) => stepMember(ctx, 1),
});
