#!/usr/bin/env node

/**
 * The build: bundles the ctpool CLI and its runtime dependencies with esbuild into dist/
 * (dist/cli.js, the bin, plus chunks loaded on demand, so that `ctpool --help` never loads
 * client-node or the simulator). The version and the build id (the git commit, short, or
 * 'dev' outside a git checkout) are written into the bundle. dist/tools (npm run bench) is
 * left alone.
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transformSync } from 'esbuild';
import { BANNER, chunkAsScript } from './chunk-scripts.mjs';
import { commandsEsbuildPlugin } from './command-records.mjs';
import {
	checkPins,
	INK_REPLACEMENTS,
	inkKeptModule,
	inkReplacementFor,
	LAZY,
	packageFile,
	patchedSource,
	SOURCE_PATCHES,
} from './replacements.mjs';

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
 * The file beside the chunks that holds a LAZY module, bundled on its own as CommonJS (so that
 * its stand-in can load it synchronously, and the chunks never hold its code).
 */
const lazyFile = (name) => `lazy-${name.replace(/[^a-z0-9]+/gi, '-')}.cjs`;

/**
 * The stand-in of a LAZY module: classes, a default function and objects that load it when
 * used, from its own file (lazyFile) through the chunk's require, which resolves beside the
 * chunk. An object's functions are called on the real object.
 */
function lazyModule(name) {
	const { names, fn, objects = [] } = LAZY[name];
	const real = `const real = () => require(${JSON.stringify(`./${lazyFile(name)}`)});`;
	const classes = names.map(
		(n) => `export class ${n} { constructor(...args) { return new (real().${n})(...args); } }`,
	);
	const call = fn ? ['export default function (...args) { return real().default(...args); }'] : [];
	const forwarded = objects.map(
		(n) =>
			`export const ${n} = new Proxy({}, { get(_, key) { const o = real().${n}; const v = o[key]; return typeof v === 'function' ? v.bind(o) : v; } });`,
	);
	return [real, ...classes, ...call, ...forwarded].join('\n');
}

/**
 * client-node's modules have no side effects on import (none is imported for its effects
 * alone), but its package.json does not say so, and its index re-exports every generated API
 * and model: 4.5 MB that every importer of KubeConfig would load. Said here, the bundle keeps
 * only what is used, and the generated code goes to the chunk of the typed clients, which the
 * console loads on their first call (source/kube/typed-clients.ts). The same plugin puts the
 * LAZY stand-ins in the place of their modules, at their importers.
 */
const clientNodeIsPure = {
	name: 'client-node-is-pure',
	setup(b) {
		b.onResolve({ filter: /^[^.]|^\.\.?\// }, async (args) => {
			if (args.pluginData === 'client-node-is-pure') return undefined;
			const lazy = LAZY[args.path];
			if (
				lazy &&
				args.namespace === 'file' &&
				lazy.importers.some((i) => args.importer.endsWith(i))
			)
				return { path: args.path, namespace: 'lazy-module', pluginData: args.resolveDir };
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
		// the stand-ins' require of their lazyFile stays a require at run time
		b.onResolve({ filter: /^\.\/lazy-[a-z0-9-]+\.cjs$/ }, (args) =>
			args.namespace === 'lazy-module' ? { path: args.path, external: true } : undefined,
		);
		b.onLoad({ filter: /.*/, namespace: 'lazy-module' }, (args) => ({
			contents: lazyModule(args.path),
			resolveDir: args.pluginData,
			loader: 'js',
		}));
		b.onLoad({ filter: /.*/, namespace: 'client-node-config-gen' }, (args) => ({
			contents:
				"export { createConfiguration } from './configuration.js';\nexport { ServerConfiguration } from './servers.js';\n",
			resolveDir: args.pluginData,
			loader: 'js',
		}));
	},
};

/**
 * Ink recomputes every row and every text node of the screen on every frame. The build puts
 * versions that keep their results between frames in the place of three of Ink's modules:
 * its Output (source/tui/render/ink-output.ts), its squashTextNodes and the widest-line it
 * measures text with (source/tui/render/ink-text-caches.ts), as INK_REPLACEMENTS in
 * scripts/replacements.mjs says (the tests make the same replacements, vitest.config.ts).
 * test/tui/ink-output.test.ts and ink-text-caches.test.ts hold each to Ink's own. The build
 * fails if Ink no longer imports them where this expects.
 */
const inkKeepsFrames = {
	name: 'ink-keeps-frames',
	setup(b) {
		const replaced = new Set();
		b.onResolve({ filter: /^(\.\/output|\.\/squash-text-nodes)\.js$|^widest-line$/ }, (args) => {
			const to = inkReplacementFor(args.importer, args.path);
			if (!to) return undefined;
			replaced.add(to.key);
			return to.file ? { path: to.file } : { path: to.made, namespace: 'ink-kept' };
		});
		b.onLoad({ filter: /.*/, namespace: 'ink-kept' }, (args) => ({
			contents: inkKeptModule(args.path),
			resolveDir: root,
			loader: 'js',
		}));
		b.onEnd(() => {
			const missing = Object.keys(INK_REPLACEMENTS).filter((k) => !replaced.has(k));
			if (missing.length > 0)
				throw new Error(
					`build: Ink no longer imports ${missing.join(', ')}; check source/tui/render/ink-output.ts and ink-text-caches.ts against this Ink`,
				);
		});
	},
};

/**
 * The start-up patches of SOURCE_PATCHES (scripts/replacements.mjs): string-width makes its
 * grapheme segmenter and emoji pattern on first use (and measures more than printable ASCII
 * without them), meow sets up normalize-package-data on first use, and Yoga's loader decodes
 * its embedded WebAssembly instead of fetching a data: URL (which loaded Node's HTTP client).
 * The build fails if a module no longer reads as expected.
 */
const startUpPatches = {
	name: 'start-up-patches',
	setup(b) {
		const applied = new Set();
		b.onLoad(
			{
				filter:
					/[\\/]node_modules[\\/](string-width[\\/]index|meow[\\/]build[\\/]dependencies|yoga-layout[\\/]dist[\\/](binaries[\\/][^\\/]+|src[\\/]index)|ink[\\/]build[\\/]reconciler)\.js$/,
			},
			(args) => {
				const contents = patchedSource(args.path, readFileSync(args.path, 'utf8'));
				if (contents === undefined) return undefined;
				applied.add(args.path);
				return { contents, loader: 'js' };
			},
		);
		b.onEnd(() => {
			const missing = SOURCE_PATCHES.filter((p) => !applied.has(packageFile(p.module, p.file)));
			if (missing.length > 0)
				throw new Error(
					`build: no longer bundled as patched: ${missing.map((p) => `${p.module}/${p.file}`).join(', ')}`,
				);
		});
	},
};

/**
 * The dependencies' local names made short (a module's own top-level names stay, and so does
 * all of ctpool's code, so stack traces and profiles still name ctpool's functions): React's
 * reconciler ships its production build unminified, and V8 reads every byte of each chunk the
 * console loads at start-up (the console's chunk: 800 KB -> 620 KB, 4 ms less to load on the
 * 2-core machine). Last of the plugins: a file another one loads (a patched or replaced
 * module) is left as it makes it.
 */
const shortNames = {
	name: 'short-names',
	setup(b) {
		b.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, (args) => ({
			contents: transformSync(readFileSync(args.path, 'utf8'), {
				minifyIdentifiers: true,
				loader: 'js',
				sourcefile: args.path,
			}).code,
			loader: 'js',
		}));
	},
};

// The packages patched above are the pinned ones, file by file (scripts/pins.json).
try {
	checkPins();
} catch (error) {
	console.error(error.message);
	process.exit(1);
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
	// .mjs: Node knows a chunk for an ES module by its name, without looking up the package.json
	// that says so for each (7 ms of every start on the 2-core machine). The bin keeps its name.
	outExtension: { '.js': '.mjs' },
	logLevel: 'warning',
	plugins: [clientNodeIsPure, inkKeepsFrames, startUpPatches, commandsEsbuildPlugin, shortNames],
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
	// CommonJS dependencies bundled into ESM still call require() for Node's built-ins (as
	// scripts, the chunks have the loader's require instead: chunkAsScript takes this off).
	banner: { js: BANNER },
});
/** Options of the builds of single files beside the bundle: the LAZY modules, the bin, the loader. */
const single = {
	bundle: true,
	platform: 'node',
	target: 'node20',
	logLevel: 'warning',
	legalComments: 'none',
	minifyWhitespace: true,
	minifySyntax: true,
};
// Each LAZY module in its own CommonJS file beside the chunks: read only when first used.
await build({
	...single,
	entryPoints: Object.fromEntries(
		Object.keys(LAZY).map((name) => [lazyFile(name).replace(/\.cjs$/, ''), name]),
	),
	outdir: join(dist, 'chunks'),
	outExtension: { '.js': '.cjs' },
	format: 'cjs',
});
// Each ES module chunk as a script, which the chunk loader runs with V8's code cache
// (scripts/chunk-scripts.mjs, source/script-loader.ts). The entry's chunk gets a hash of its
// text in its name, as esbuild gives the others: the cache of a chunk is kept by its name.
const asScript = (file, path) => chunkAsScript(file, readFileSync(path, 'utf8'));
const chunksDir = join(dist, 'chunks');
for (const file of readdirSync(chunksDir).filter((f) => f.endsWith('.mjs'))) {
	writeFileSync(
		join(chunksDir, file.replace(/\.mjs$/, '.js')),
		asScript(file, join(chunksDir, file)),
	);
	rmSync(join(chunksDir, file));
}
const entryText = asScript('cli.mjs', join(dist, 'cli.mjs'));
const entry = `cli-${createHash('sha256').update(entryText).digest('hex').slice(0, 8).toUpperCase()}`;
writeFileSync(join(chunksDir, `${entry}.js`), entryText);
rmSync(join(dist, 'cli.mjs'));
// The bin, and the chunk loader in a module of its own beside the chunks (the tests load
// chunks through it too).
const binOptions = { ...single, outdir: dist, format: 'esm' };
await build({
	...binOptions,
	entryPoints: { 'chunks/loader': join(root, 'source', 'script-loader.ts') },
	outExtension: { '.js': '.mjs' },
});
await build({
	...binOptions,
	entryPoints: { cli: join(root, 'source', 'bin.ts') },
	define: { __CTPOOL_ENTRY__: JSON.stringify(entry) },
	plugins: [
		{
			name: 'loader-beside-chunks',
			setup(b) {
				b.onResolve({ filter: /^\.\/script-loader\.js$/ }, () => ({
					path: './chunks/loader.mjs',
					external: true,
				}));
			},
		},
	],
});
chmodSync(join(dist, 'cli.js'), 0o755);
