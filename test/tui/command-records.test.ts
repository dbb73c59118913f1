import { describe, expect, it } from 'vitest';
import { COMMAND_NEEDS } from '../../source/tui/commands/access.js';
import { matches } from '../../source/tui/commands/command.js';
import { commandOf, KEY_BINDINGS, keyPresses, NO_KEY } from '../../source/tui/commands/keys.js';
import { COMMANDS, Command, HELP_GROUPS } from '../../source/tui/commands/registry.js';

describe('the command records', () => {
	it('have unique ids and names, and Command names each id', () => {
		expect(new Set(COMMANDS.map((c) => c.id)).size).toBe(COMMANDS.length);
		expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
		for (const c of COMMANDS) expect((Command as Record<string, string>)[c.name]).toBe(c.id);
	});

	it('bind no key twice: each plain key matches exactly its own command', () => {
		for (const c of COMMANDS)
			for (const m of c.match) {
				if (!('char' in m)) continue;
				const [[input, key]] = keyPresses(m.char, NO_KEY) as [[string, typeof NO_KEY]];
				expect(commandOf(input, key), m.char).toBe(c.id);
				const others = COMMANDS.filter(
					(o) => o !== c && o.match.some((x) => matches(x, input, key)),
				);
				expect(others.map((o) => o.id)).toEqual([]);
			}
	});

	it('derive the help groups (contiguous, in registry order), the bindings and the needs', () => {
		expect(HELP_GROUPS.map((g) => g.title)).toEqual([
			'Move',
			'Find, sort, mark',
			'Act on the cluster',
			'Views',
		]);
		expect(HELP_GROUPS.flatMap((g) => g.commands)).toEqual(COMMANDS.map((c) => c.id));
		expect(KEY_BINDINGS.map((b) => b.command)).toEqual(COMMANDS.map((c) => c.id));
		expect(Object.keys(COMMAND_NEEDS).sort()).toEqual(
			COMMANDS.filter((c) => c.needs)
				.map((c) => c.id)
				.sort(),
		);
		// every command that changes the cluster says what it needs
		for (const c of COMMANDS) if (c.mutating) expect(c.needs, c.id).toBeDefined();
	});

	it('offer each command on the screens its bar shows it on', () => {
		for (const c of COMMANDS)
			for (const screen of c.bar ?? []) expect(c.screens, c.id).toContain(screen);
	});
});
