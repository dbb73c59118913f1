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

/**
 * client-node's modules have no side effects on import (none is imported for its effects
 * alone), but its package.json does not say so, and its index re-exports every generated API
 * and model: 4.5 MB that every importer of KubeConfig would load. Said here, the bundle keeps
 * only what is used, and the generated code goes to the chunk of the typed clients, which the
 * console loads on their first call (source/kube/typed-clients.ts).
 */
const clientNodeIsPure = {
	name: 'client-node-is-pure',
	setup(b) {
		b.onResolve({ filter: /^[^.]|^\.\.?\// }, async (args) => {
			if (args.pluginData === 'client-node-is-pure') return undefined;
			const r = await b.resolve(args.path, {
				kind: args.kind,
				importer: args.importer,
				resolveDir: args.resolveDir,
				pluginData: 'client-node-is-pure',
			});
			if (r.errors.length > 0 || !r.path.includes('/@kubernetes/client-node/dist/'))
				return undefined;
			// KubeConfig takes two names from the generated index, which re-exports every API and
			// model; esbuild places what a module can reach in the chunks it loads, so KubeConfig
			// gets a slim index of just those two.
			if (args.path === './gen/index.js' && args.importer.endsWith('/client-node/dist/config.js'))
				return { path: r.path, namespace: 'client-node-config-gen', pluginData: dirname(r.path) };
			return { ...r, sideEffects: false };
		});
		b.onLoad({ filter: /.*/, namespace: 'client-node-config-gen' }, (args) => ({
			contents:
				"export { createConfiguration } from './configuration.js';\nexport { ServerConfiguration } from './servers.js';\n",
			resolveDir: args.pluginData,
			loader: 'js',
		}));
	},
};

/**
 * Ink's renderer makes a new Output for every frame and rebuilds every row of the screen,
 * glyph by glyph; source/tui/ink-output.ts is the same class keeping rows and lines from one
 * frame to the next (test/tui/ink-output.test.ts holds it to Ink's output). The build fails
 * if Ink's renderer no longer imports its Output where this expects it.
 */
let inkOutputReplaced = false;
const inkOutputKeepsRows = {
	name: 'ink-output-keeps-rows',
	setup(b) {
		b.onResolve({ filter: /^\.\/output\.js$/ }, (args) => {
			if (!/[\\/]ink[\\/]build[\\/]renderer\.js$/.test(args.importer)) return undefined;
			inkOutputReplaced = true;
			return { path: join(root, 'source', 'tui', 'ink-output.ts') };
		});
	},
};

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
	plugins: [clientNodeIsPure, inkOutputKeepsRows],
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
if (!inkOutputReplaced)
	throw new Error(
		"build: Ink's renderer no longer imports ./output.js; check source/tui/ink-output.ts against this Ink",
	);
chmodSync(join(dist, 'cli.js'), 0o755);
