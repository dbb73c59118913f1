/** Types of command-records.mjs (the records' module, for the build and the tests). */
export const COMMANDS_DIR: string;
export const VIRTUAL_COMMANDS: string;
export function commandFiles(dir?: string): string[];
export function commandsModule(dir?: string): string;
export const commandsEsbuildPlugin: { name: string; setup(build: unknown): void };
export function commandsVitePlugin(): {
	name: string;
	resolveId(source: string): string | undefined;
	load(id: string): string | undefined;
};
