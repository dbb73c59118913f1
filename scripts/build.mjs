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
 * What client-node's modules on the console's path import, by module, and only use on
 * demand: the proxy agents (a proxy-url in the kubeconfig) and node-fetch (fetch options, the
 * generated clients' own HTTP library, which ctpool replaces). Each becomes a stand-in that
 * loads the real module on first use: its code (half a megabyte with node-fetch's URL tables)
 * is then only read, never run, at start-up.
 */
const LAZY = {
	'node-fetch': {
		importers: ['/config.js', '/gen/http/isomorphic-fetch.js'],
		names: ['Headers'],
		fn: true,
	},
	'socks-proxy-agent': { importers: ['/config.js'], names: ['SocksProxyAgent'] },
	hpagent: { importers: ['/config.js'], names: ['HttpProxyAgent', 'HttpsProxyAgent'] },
};

/** The stand-in of a LAZY module: classes and a default function that load it when used. */
function lazyModule(name) {
	const { names, fn } = LAZY[name];
	const real = `const real = () => require(${JSON.stringify(name)});`;
	const classes = names.map(
		(n) => `export class ${n} { constructor(...args) { return new (real().${n})(...args); } }`,
	);
	const call = fn ? ['export default function (...args) { return real().default(...args); }'] : [];
	return [real, ...classes, ...call].join('\n');
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
			const lazy = LAZY[args.path];
			if (
				lazy &&
				args.namespace === 'file' &&
				lazy.importers.some((i) => args.importer.endsWith(`/@kubernetes/client-node/dist${i}`))
			)
				return { path: args.path, namespace: 'client-node-lazy', pluginData: args.resolveDir };
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
		b.onLoad({ filter: /.*/, namespace: 'client-node-lazy' }, (args) => ({
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
 * its Output (source/tui/render/ink-output.ts), its squashTextNodes and the widest-line it measures
 * text with (source/tui/render/ink-text-caches.ts). test/tui/ink-output.test.ts and
 * ink-text-caches.test.ts hold each to Ink's own. The build fails if Ink no longer imports
 * them where this expects.
 */
const inkKeepsFrames = {
	name: 'ink-keeps-frames',
	setup(b) {
		const inkBuild = /[\\/]ink[\\/]build[\\/]([a-z-]+)\.js$/;
		const caches = join(root, 'source', 'tui', 'render', 'ink-text-caches.ts');
		const wanted = {
			'renderer.js ./output.js': { path: join(root, 'source', 'tui', 'render', 'ink-output.ts') },
			'render-node-to-output.js ./squash-text-nodes.js': { path: 'squash', namespace: 'ink-kept' },
			'dom.js ./squash-text-nodes.js': { path: 'squash', namespace: 'ink-kept' },
			'render-node-to-output.js widest-line': { path: 'widest-line', namespace: 'ink-kept' },
			'measure-text.js widest-line': { path: 'widest-line', namespace: 'ink-kept' },
		};
		b.onResolve({ filter: /^(\.\/output|\.\/squash-text-nodes)\.js$|^widest-line$/ }, (args) => {
			const file = inkBuild.exec(args.importer)?.[1];
			const to = file && wanted[`${file}.js ${args.path}`];
			if (!to) return undefined;
			replaced.add(`${file}.js ${args.path}`);
			return to;
		});
		b.onLoad({ filter: /.*/, namespace: 'ink-kept' }, (args) => ({
			contents:
				args.path === 'squash'
					? `import sanitizeAnsi from './sanitize-ansi.js';\nimport { memoizeSquash } from ${JSON.stringify(caches)};\nexport default memoizeSquash(sanitizeAnsi);\n`
					: `import widestLine from 'widest-line';\nimport { keepAnswers } from ${JSON.stringify(caches)};\nexport default keepAnswers(widestLine);\n`,
			resolveDir: join(root, 'node_modules', 'ink', 'build'),
			loader: 'js',
		}));
		b.onEnd(() => {
			const missing = Object.keys(wanted).filter((k) => !replaced.has(k));
			if (missing.length > 0)
				throw new Error(
					`build: Ink no longer imports ${missing.join(', ')}; check source/tui/render/ink-output.ts and ink-text-caches.ts against this Ink`,
				);
		});
	},
};
const replaced = new Set();

/**
 * string-width builds a grapheme segmenter and its emoji pattern when it loads (35 ms on the
 * 2-core machine, before the console's watch could start); here both are made on first use,
 * which printable ASCII never reaches. The build fails if the module no longer reads as
 * expected.
 */
const stringWidthLazy = {
	name: 'string-width-lazy',
	setup(b) {
		const own = join(root, 'node_modules', 'string-width', 'index.js');
		b.onLoad({ filter: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/ }, (args) => {
			// the one ctpool depends on (wrap-ansi keeps an older one of its own)
			if (args.path !== own) return undefined;
			let text = readFileSync(args.path, 'utf8');
			const uses = (name) => text.split(name).length - 1;
			// the stand-ins have only the methods string-width calls
			if (uses('segmenter.') !== 1 || uses('rgiEmojiRegex.') !== 1)
				throw new Error('build: string-width uses its segmenter or emoji pattern in a new way');
			const swaps = [
				[
					'const segmenter = new Intl.Segmenter();',
					'let madeSegmenter;\nconst segmenter = {segment: (s) => (madeSegmenter ??= new Intl.Segmenter()).segment(s)};',
				],
				[
					'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
					"let madeRgi;\nconst rgiEmojiRegex = {test: (s) => (madeRgi ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v')).test(s)};",
				],
			];
			for (const [from, to] of swaps) {
				if (!text.includes(from)) throw new Error(`build: string-width no longer has ${from}`);
				text = text.replace(from, () => to);
			}
			return { contents: text, loader: 'js' };
		});
	},
};

/**
 * Yoga's loader (Emscripten's) reads its embedded WebAssembly through fetch() of a data: URL
 * when fetch exists: in Node that first use of fetch loads Node's own HTTP client (undici),
 * 25 ms at every start of the console. Here it decodes the embedded bytes itself, as it does
 * where there is no fetch. The build fails if the loader no longer reads as expected.
 */
const yogaWithoutFetch = {
	name: 'yoga-without-fetch',
	setup(b) {
		b.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/][^\\/]+\.js$/ }, (args) => {
			const text = readFileSync(args.path, 'utf8');
			const from = 'function ya(){return w||"function"!=typeof fetch?';
			if (text.split(from).length !== 2)
				throw new Error(`build: yoga-layout's loader no longer has ${from}`);
			return { contents: text.replace(from, () => 'function ya(){return true?'), loader: 'js' };
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
	plugins: [clientNodeIsPure, inkKeepsFrames, stringWidthLazy, yogaWithoutFetch],
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
