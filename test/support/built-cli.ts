/** The built ctpool binary the end-to-end, binary and safety tests run (npm test builds it first). */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI, dist/cli.js. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Whether the built CLI exists. */
export const BUILT = existsSync(CLI);

/**
 * Whether the built CLI exists; when it does not, says which tests skip and why (npm test
 * builds it before the tests run, so this happens only when a test file is run alone).
 */
export function builtOrSay(what: string): boolean {
	if (!BUILT) console.warn(`skipping ${what}: ${CLI} is missing (npm run build makes it)`);
	return BUILT;
}

/** Throws a clear message when the binary has not been built. */
export function requireBuild(): void {
	if (!existsSync(CLI))
		throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
}
