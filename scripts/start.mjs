#!/usr/bin/env node
/**
 * npm start: runs the built CLI (dist/cli.js) with the given arguments, building it first
 * only when it is missing or older than a source file, package.json or
 * the build script.
 */

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

/** The newest modification time under a path (a file or a directory tree), in ms. */
function newest(path) {
	const st = statSync(path, { throwIfNoEntry: false });
	if (!st) return 0;
	if (!st.isDirectory()) return st.mtimeMs;
	let max = st.mtimeMs;
	for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
	return max;
}

function stale() {
	if (!existsSync(cli) || !existsSync(join(root, 'dist', 'chunks'))) return true;
	const built = statSync(cli).mtimeMs;
	const inputs = ['source', 'package.json', join('scripts', 'build.mjs')];
	return inputs.some((p) => newest(join(root, p)) > built);
}

if (stale()) {
	process.stderr.write('ctpool: building dist/ (npm run build)...\n');
	await import('./build.mjs');
}
// The CLI reads its arguments from process.argv.slice(2), which are this script's.
await import(pathToFileURL(cli).href);
