#!/usr/bin/env node
/**
 * The build: bundles the ctpool CLI and its runtime dependencies with esbuild into dist/
 * (dist/cli.js, the bin, plus chunks loaded on demand, so that `ctpool --help` never loads
 * client-node or the simulator). The version and the build id (the git commit, short, or
 * 'dev' outside a git checkout) are written into the bundle. dist/tools (npm run bench) is
 * left alone.
 */

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function buildId() {
	try {
		const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
		const dirty = execFileSync('git', ['status', '--porcelain', '--', 'source', 'package.json'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
		return sha ? `${sha}${dirty ? '-dirty' : ''}` : 'dev';
	} catch {
		return 'dev';
	}
}

mkdirSync(dist, { recursive: true });
for (const name of readdirSync(dist))
	if (name !== 'tools') rmSync(join(dist, name), { recursive: true, force: true });

await build({
	entryPoints: { cli: join(root, 'source', 'cli.ts') },
	outdir: dist,
	bundle: true,
	splitting: true,
	format: 'esm',
	platform: 'node',
	target: 'node20',
	chunkNames: 'chunks/[name]-[hash]',
	logLevel: 'warning',
	legalComments: 'none',
	// Less to read and parse at every start; names stay, so stack traces still say something.
	minifyWhitespace: true,
	minifySyntax: true,
	// React and Ink in their production builds, always.
	define: {
		'process.env.NODE_ENV': '"production"',
		__CTPOOL_VERSION__: JSON.stringify(pkg.version),
		__CTPOOL_BUILD__: JSON.stringify(buildId()),
	},
	// Ink loads the React devtools only when DEV=true; they are not a dependency of ctpool.
	external: ['react-devtools-core'],
	// CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
	banner: {
		js: "import { createRequire as __ctpoolCreateRequire } from 'node:module'; const require = __ctpoolCreateRequire(import.meta.url);",
	},
});
chmodSync(join(dist, 'cli.js'), 0o755);
