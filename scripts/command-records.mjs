/**
 * The console's commands are found, not listed: every file of source/tui/commands/ that
 * defines a command (`export const x = defineCommand(`) is imported by the module
 * `virtual:console-commands`, which the build (an esbuild plugin) and the tests (a Vite
 * plugin) both make from this one definition; source/tui/commands/registry.ts reads it.
 * Adding a key is its record file (and its README row).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './replacements.mjs';

/** The folder of the records. */
export const COMMANDS_DIR = join(root, 'source', 'tui', 'commands');

/** The module's name, as registry.ts imports it. */
export const VIRTUAL_COMMANDS = 'virtual:console-commands';

const DEFINES = /^export const \w+ = defineCommand\(/m;

/** The record files of a folder, by name. */
export function commandFiles(dir = COMMANDS_DIR) {
	return readdirSync(dir)
		.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
		.sort()
		.filter((f) => DEFINES.test(readFileSync(join(dir, f), 'utf8')));
}

/** The module's source: each record file's exports, in file name order. */
export function commandsModule(dir = COMMANDS_DIR) {
	const files = commandFiles(dir);
	const imports = files.map((f, i) => `import * as m${i} from ${JSON.stringify(join(dir, f))};`);
	return `${imports.join('\n')}\nexport default [${files.map((_, i) => `m${i}`).join(', ')}];\n`;
}

/** The esbuild plugin (scripts/build.mjs). */
export const commandsEsbuildPlugin = {
	name: 'console-commands',
	setup(b) {
		b.onResolve({ filter: /^virtual:console-commands$/ }, () => ({
			path: 'records',
			namespace: 'console-commands',
		}));
		b.onLoad({ filter: /.*/, namespace: 'console-commands' }, () => ({
			contents: commandsModule(),
			resolveDir: COMMANDS_DIR,
			loader: 'js',
			watchDirs: [COMMANDS_DIR],
		}));
	},
};

/** The Vite plugin (vitest.config.ts). */
export function commandsVitePlugin() {
	const id = `\0${VIRTUAL_COMMANDS}`;
	return {
		name: 'console-commands',
		resolveId: (source) => (source === VIRTUAL_COMMANDS ? id : undefined),
		load: (loaded) => (loaded === id ? commandsModule() : undefined),
	};
}
