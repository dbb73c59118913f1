import { describe, expect, it } from 'vitest';
import { COMMAND_NEEDS } from '../../source/tui/commands/access.js';
import { blockedReason } from '../../source/tui/commands/availability.js';
import { type CommandRecord, matches } from '../../source/tui/commands/command.js';
import {
	commandOf,
	KEY_BINDINGS,
	keyPresses,
	keysTakenBy,
	NO_KEY,
} from '../../source/tui/commands/keys.js';
import { COMMANDS, Command, HELP_GROUPS, recordOf } from '../../source/tui/commands/registry.js';
import { createConsoleStore } from '../../source/tui/store/store.js';

describe('the command records', () => {
	it('have unique ids and names, and Command names each id', () => {
		expect(new Set(COMMANDS.map((c) => c.id)).size).toBe(COMMANDS.length);
		expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
		for (const c of COMMANDS) expect((Command as Record<string, string>)[c.name]).toBe(c.id);
	});

	it('bind no key twice: each plain key matches exactly its own command', () => {
		const all: readonly CommandRecord[] = COMMANDS;
		const plain = all.filter((c) => !c.mode);
		for (const c of plain)
			for (const m of c.match) {
				if (!('char' in m)) continue;
				const [[input, key]] = keyPresses(m.char, NO_KEY) as [[string, typeof NO_KEY]];
				expect(commandOf(input, key), m.char).toBe(c.id);
				const others = plain.filter((o) => o !== c && o.match.some((x) => matches(x, input, key)));
				expect(others.map((o) => o.id)).toEqual([]);
			}
	});

	it("give a mode's keys to its commands only while it is active (the narrated demo's Space and n)", () => {
		const all: readonly CommandRecord[] = COMMANDS;
		const store = createConsoleStore({ session: { namespace: 'corral' } });
		const [[space, key]] = keyPresses(' ', NO_KEY) as [[string, typeof NO_KEY]];
		// not narrating: Space marks, n is nothing, and the narration keys say why they do nothing
		expect(commandOf(space, key, store.getState())).toBe(Command.Mark);
		expect(commandOf('n', NO_KEY, store.getState())).toBeNull();
		expect(blockedReason(store.getState(), Command.NarratePause)).toMatch(/narrated demo/);
		expect(blockedReason(store.getState(), Command.Mark)).not.toMatch(/narrat/);
		// narrating: Space and n are the narration's, and mark says so
		store.getState().startNarration({ toggle: () => true, next: () => false });
		const s = store.getState();
		expect(commandOf(space, key, s)).toBe(Command.NarratePause);
		expect(commandOf('n', NO_KEY, s)).toBe(Command.NarrateNext);
		expect(keysTakenBy(s, recordOf(Command.Mark))?.id).toBe(Command.NarratePause);
		expect(blockedReason(s, Command.Mark, 'members')).toBe('while narrating, Space is pause');
		// the narration is told beside the tables: elsewhere its keys say so and do nothing
		expect(blockedReason(s, Command.NarratePause, 'members')).toBeNull();
		expect(blockedReason(s, Command.NarrateNext, 'details')).toMatch(/pools and members screens/);
		// no two commands of one mode share a key
		const moded = all.filter((c) => c.mode);
		expect(moded.length).toBeGreaterThan(0);
		const chars = moded.flatMap((c) => c.match.flatMap((m) => ('char' in m ? [m.char] : [])));
		expect(new Set(chars).size).toBe(chars.length);
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
