/** Where the chaos driver finds the repository and the built CLI, from source or from dist. */

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest directory above this file whose package.json is ctpool's. */
export function repoRoot(): string {
	let dir = dirname(fileURLToPath(import.meta.url));
	for (;;) {
		const pkg = join(dir, 'package.json');
		if (existsSync(pkg)) {
			try {
				if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'ctpool')
					return dir;
			} catch {
				// not this one
			}
		}
		const up = dirname(dir);
		if (up === dir)
			throw new Error('the ctpool repository root was not found above the chaos driver');
		dir = up;
	}
}

/** The built CLI, dist/cli.js (made by npm run build). */
export function builtCli(): string {
	return join(repoRoot(), 'dist', 'cli.js');
}
