/**
 * The console's commands are found, not listed (scripts/command-records.mjs): every record
 * file of source/tui/commands is in the registry, in help order, and a new record file is
 * found without any other change.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandFiles, commandsModule } from '../../scripts/command-records.mjs';
import { HELP_GROUP_ORDER } from '../../source/tui/commands/command.js';
import { COMMANDS } from '../../source/tui/commands/registry.js';

const dir = mkdtempSync(join(tmpdir(), 'ctpool-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the command records', () => {
	it('every record file of the folder is in the registry, once', () => {
		const files = commandFiles();
		expect(files.length).toBeGreaterThan(25);
		expect(COMMANDS).toHaveLength(files.length);
		expect(new Set(COMMANDS.map((c) => c.id)).size).toBe(COMMANDS.length);
	});

	it('are in help order: by group, then by their order in it', () => {
		const places = COMMANDS.map((c) => [HELP_GROUP_ORDER.indexOf(c.group), c.order] as const);
		const sorted = [...places].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
		expect(places).toEqual(sorted);
		expect(COMMANDS[0]?.id).toBe('up');
		expect(COMMANDS.at(-1)?.id).toBe('quit');
	});

	it('a new file defining a command is found; a helper file is not', () => {
		writeFileSync(
			join(dir, 'zap.ts'),
			"export const zap = defineCommand({ name: 'Zap', id: 'zap' });\n",
		);
		writeFileSync(join(dir, 'helper.ts'), 'export function help(): void {}\n');
		writeFileSync(join(dir, 'types.d.ts'), 'export const x = defineCommand(\n');
		expect(commandFiles(dir)).toEqual(['zap.ts']);
		const module = commandsModule(dir);
		expect(module).toContain(JSON.stringify(join(dir, 'zap.ts')));
		expect(module).not.toContain('helper.ts');
		expect(module).toMatch(/export default \[m0\];/);
	});
});
