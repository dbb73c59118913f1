/** ]: in details, the next member. */

import { defineCommand } from './command.js';
import { stepAvailable, stepMember } from './member-step.js';

declare module './command.js' {
	interface CommandIds {
		NextMember: 'next-member';
	}
}

export const nextMember = defineCommand({
	name: 'NextMember',
	id: 'next-member',
	match: [{ char: ']' }],
	keys: ']',
	hint: 'next',
	description: 'in details: the next member, in the members screen order',
	group: 'Move',
	order: 80,
	screens: ['details'],
	mutating: false,
	available: (_state, screen) => stepAvailable(screen),
	run: (ctx) => stepMember(ctx, 1),
});
