/**
 * The one definition of what ctpool puts in the place of its libraries' own code, shared by
 * the build (scripts/build.mjs, esbuild) and the tests (vitest.config.ts, a Vite plugin), so
 * that the component tests render through the same Ink modules the bundle ships:
 *
 * - INK_REPLACEMENTS: three of Ink's modules, replaced where Ink imports them: its Output
 *   (source/tui/render/ink-output.ts), its squashTextNodes and the widest-line it measures text
 *   with (source/tui/render/ink-text-caches.ts);
 * - SOURCE_PATCHES: start-up patches made by matching source text (string-width's segmenter
 *   and emoji pattern made on first use and its fast path wider, meow's package normalizer
 *   set up on first use, Yoga's loader without fetch and without a top-level await, Ink's
 *   DEV-only top-level awaits gone), applied by the build;
 * - LAZY: client-node's imports that the bundle loads on first use (the build's stand-ins);
 * - PINNED: every upstream file the above replaces, patches or depends on the import names of,
 *   by package. scripts/pins.json holds each package's version and each file's sha256;
 *   checkPins() fails on any other installed version or changed file (the build runs it, and
 *   test/tui/ink-pins.test.ts). `npm run pins -- --write` refreshes scripts/pins.json after an
 *   upgrade (README.md, "Upgrading Ink").
 *
 * Nothing here runs when the console runs: the checks belong to the build and the tests.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nodeModules = join(root, 'node_modules');
const render = join(root, 'source', 'tui', 'render');
const inkBuild = join(nodeModules, 'ink', 'build');

/** Where the build and the tests put Ink's Output. */
export const INK_OUTPUT = join(render, 'ink-output.ts');
/** The module of the console's squashTextNodes and widest-line. */
export const INK_TEXT_CACHES = join(render, 'ink-text-caches.ts');

/**
 * Ink's imports that are replaced, as `<file in ink/build> <specifier>`: to a file, or to a
 * module made here (inkKeptModule) by its name.
 */
export const INK_REPLACEMENTS = {
	'renderer.js ./output.js': { file: INK_OUTPUT },
	'render-node-to-output.js ./squash-text-nodes.js': { made: 'squash' },
	'dom.js ./squash-text-nodes.js': { made: 'squash' },
	'render-node-to-output.js widest-line': { made: 'widest-line' },
	'measure-text.js widest-line': { made: 'widest-line' },
};

const inkFile = /[\\/]node_modules[\\/]ink[\\/]build[\\/]([a-z-]+\.js)$/;

/**
 * The replacement of an import that Ink makes (importer: the importing file's path), with its
 * key in INK_REPLACEMENTS; undefined for every other import.
 */
export function inkReplacementFor(importer, specifier) {
	const file = inkFile.exec(importer.split('?')[0] ?? '')?.[1];
	if (!file) return undefined;
	const key = `${file} ${specifier}`;
	const to = INK_REPLACEMENTS[key];
	return to ? { key, ...to } : undefined;
}

/** The text of a module made here in the place of one of Ink's (absolute imports only). */
export function inkKeptModule(name) {
	const caches = JSON.stringify(INK_TEXT_CACHES);
	if (name === 'squash')
		return `import sanitizeAnsi from ${JSON.stringify(join(inkBuild, 'sanitize-ansi.js'))};\nimport { memoizeSquash } from ${caches};\nexport default memoizeSquash(sanitizeAnsi);\n`;
	if (name === 'widest-line')
		return `import widestLine from ${JSON.stringify(join(nodeModules, 'widest-line', 'index.js'))};\nimport { memoizeByText } from ${caches};\nexport default memoizeByText(widestLine);\n`;
	throw new Error(`no module of Ink's is made as ${name}`);
}

/**
 * Characters that string-width measures one column wide each, alone or side by side: every one
 * a grapheme of its own (no mark, joiner, variation selector, control, format character or
 * emoji presentation among them), so a text of them alone is as wide as it is long. Printable
 * ASCII; Latin-1 and the Latin extensions without the soft hyphen; general punctuation; arrows
 * and mathematical operators; box drawing, blocks and the geometric shapes before the two emoji
 * squares; Braille; and the console's own marks (⏎ ⏸ ⚠ ✓ ✕ ✗ ⟳). test/install/bundle.test.ts
 * measures every one, and texts of them, with the stock package.
 */
export const NARROW_RANGES = [
	[0x20, 0x7e],
	[0xa0, 0xac],
	[0xae, 0x2ff],
	[0x2010, 0x2027],
	[0x2030, 0x205e],
	[0x2190, 0x22ff],
	[0x23ce, 0x23ce],
	[0x23f8, 0x23f8],
	[0x2500, 0x25fc],
	[0x26a0, 0x26a0],
	[0x2713, 0x2717],
	[0x27f0, 0x27ff],
	[0x2800, 0x28ff],
];

const hex = (n) => `\\u${n.toString(16).toUpperCase().padStart(4, '0')}`;
/** NARROW_RANGES as the source of a regular expression's character class. */
const narrowClass = NARROW_RANGES.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join(
	'',
);

/**
 * Patches of a package's file by its source text. `uses`: names that must occur exactly once
 * (the stand-ins have only the methods used there); `swaps`: [from, to], each `from` exactly
 * once.
 */
export const SOURCE_PATCHES = [
	{
		// string-width builds a grapheme segmenter and its emoji pattern when it loads (35 ms on
		// the 2-core machine); here both are made on first use, which printable ASCII never reaches.
		// Its fast path (width = length) takes every NARROW_RANGES text, not printable ASCII
		// alone: the console's first frame has · … ● ─ in it, and the emoji pattern's first use
		// compiled Unicode's emoji sequences there (40-70 ms of a start-up on the 2-core machine).
		// Only the copy ctpool depends on (wrap-ansi keeps an older one of its own).
		module: 'string-width',
		file: 'index.js',
		uses: ['segmenter.', 'rgiEmojiRegex.'],
		swaps: [
			['if (/^[\\u0020-\\u007E]*$/.test(string)) {', `if (/^[${narrowClass}]*$/.test(string)) {`],
			[
				'const segmenter = new Intl.Segmenter();',
				'let madeSegmenter;\nconst segmenter = {segment: (s) => (madeSegmenter ??= new Intl.Segmenter()).segment(s)};',
			],
			[
				'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
				"let madeRgi;\nconst rgiEmojiRegex = {test: (s) => (madeRgi ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v')).test(s)};",
			],
		],
	},
	{
		// meow's bundle of dependencies sets up normalize-package-data (and the SPDX license
		// lists it sorts) when it loads, for a package.json that ctpool never has it normalize
		// (20-30 ms of every command line on the 2-core machine); here on first use.
		module: 'meow',
		file: 'build/dependencies.js',
		uses: [],
		swaps: [
			[
				'var normalizeExports = requireNormalize();\nconst normalizePackageData = getDefaultExportFromCjs(normalizeExports);',
				'const normalizePackageData = (...args) => getDefaultExportFromCjs(requireNormalize())(...args);',
			],
		],
	},
	{
		// Yoga's loader (Emscripten's) reads its embedded WebAssembly through fetch() of a data:
		// URL when fetch exists, which loads Node's HTTP client (25 ms); here it decodes the bytes
		// itself, as it does where there is no fetch.
		module: 'yoga-layout',
		file: 'dist/binaries/yoga-wasm-base64-esm.js',
		uses: [],
		swaps: [
			['function ya(){return w||"function"!=typeof fetch?', 'function ya(){return true?'],
			// instantiateWasm (below) is also handed the embedded WebAssembly's data: URL
			['h.instantiateWasm(d,\na)', 'h.instantiateWasm(d,\na,H)'],
		],
	},
	{
		// The bundle's chunks run as scripts (V8 keeps their compiled code between runs, see
		// source/script-loader.ts), and a script has no top-level await. Yoga's module awaited
		// its WebAssembly; here it is compiled and started at once, through Emscripten's
		// instantiateWasm hook, which then finishes the module before loadYoga returns.
		module: 'yoga-layout',
		file: 'dist/src/index.js',
		uses: [],
		swaps: [
			[
				'const Yoga = wrapAssembly(await loadYoga());',
				`const started = {
	instantiateWasm(imports, done, url) {
		const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
		done(new WebAssembly.Instance(new WebAssembly.Module(bytes), imports));
		return {};
	},
};
loadYoga(started);
if (typeof started.Node !== 'function') throw new Error('Yoga did not start synchronously');
const Yoga = wrapAssembly(started);`,
			],
		],
	},
	{
		// The same for Ink's two top-level awaits, both for DEV=true alone: the React devtools
		// (not a dependency of ctpool, so never there) and Ink's name and version for them.
		module: 'ink',
		file: 'build/reconciler.js',
		uses: [],
		swaps: [
			["        await import('./devtools.js');", '        void 0;'],
			['    ? await loadPackageJson()', '    ? { name: undefined, version: undefined }'],
		],
	},
];

/** The path of a package's file in node_modules (the top-level copy). */
export const packageFile = (module, file, base = nodeModules) =>
	join(base, module, ...file.split('/'));

/**
 * A file's text with its SOURCE_PATCHES applied, or undefined when none is for that file.
 * Throws, naming the package, when the text no longer reads as expected.
 */
export function patchedSource(path, text) {
	const patch = SOURCE_PATCHES.find((p) => packageFile(p.module, p.file) === path.split('?')[0]);
	if (!patch) return undefined;
	let out = text;
	for (const name of patch.uses)
		if (out.split(name).length !== 2)
			throw new Error(`build: ${patch.module} (${patch.file}) uses ${name} in a new way`);
	for (const [from, to] of patch.swaps) {
		if (out.split(from).length !== 2)
			throw new Error(`build: ${patch.module} (${patch.file}) no longer has ${from} once`);
		out = out.replace(from, () => to);
	}
	return out;
}

/** Where client-node's modules are, for LAZY's importers. */
const CLIENT_NODE = '/@kubernetes/client-node/dist';

/**
 * Modules the console's path imports, by module, and only uses on demand: client-node's proxy
 * agents (a proxy-url in the kubeconfig) and node-fetch (fetch options, the generated clients'
 * own HTTP library, which ctpool replaces, and the helpers ctpool does not call), and RE2's
 * engine (a typed filter). The build makes each a stand-in that loads the real module on
 * first use from a file of its own beside the chunks (node-fetch's URL tables alone are 300
 * KB, which V8 would otherwise read at every start-up). Every importer (the end of its path)
 * gets the stand-in, so there is one copy of each. A stand-in has classes (`names`, made with
 * new), a default function (`fn`), and objects whose properties are the real ones' (`objects`,
 * as a class's static methods).
 */
export const LAZY = {
	'node-fetch': {
		importers: [
			'/config.js',
			'/gen/http/isomorphic-fetch.js',
			'/health.js',
			'/index.js',
			'/log.js',
			'/metrics.js',
			'/watch.js',
		].map((file) => `${CLIENT_NODE}${file}`),
		names: ['Headers', 'AbortError', 'FetchError'],
		fn: true,
	},
	'socks-proxy-agent': { importers: [`${CLIENT_NODE}/config.js`], names: ['SocksProxyAgent'] },
	hpagent: {
		importers: [`${CLIENT_NODE}/config.js`],
		names: ['HttpProxyAgent', 'HttpsProxyAgent'],
	},
	re2js: { importers: ['/source/tui/model/member-filter.ts'], names: [], objects: ['RE2JS'] },
};

/**
 * Every package whose modules the build or the tests replace or patch, and the files of each
 * that are replaced, patched, or hold the imports the replacements are made at.
 */
export const PINNED = {
	ink: [
		'build/output.js',
		'build/squash-text-nodes.js',
		'build/renderer.js',
		'build/render-node-to-output.js',
		'build/dom.js',
		'build/measure-text.js',
		'build/sanitize-ansi.js',
		'build/reconciler.js',
	],
	'widest-line': ['index.js'],
	'string-width': ['index.js'],
	'yoga-layout': ['dist/binaries/yoga-wasm-base64-esm.js', 'dist/src/index.js'],
	meow: ['build/dependencies.js'],
	'@kubernetes/client-node': [
		'dist/config.js',
		'dist/gen/http/isomorphic-fetch.js',
		'dist/gen/index.js',
		'dist/health.js',
		'dist/index.js',
		'dist/log.js',
		'dist/metrics.js',
		'dist/watch.js',
	],
	'node-fetch': ['lib/index.js'],
	'socks-proxy-agent': ['dist/index.js'],
	hpagent: ['index.js'],
	re2js: ['build/index.js'],
};

export const PINS_FILE = join(root, 'scripts', 'pins.json');

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** The installed version and files' hashes of every PINNED package (what --write records). */
export function installedPins(base = nodeModules) {
	const pins = {};
	for (const [module, files] of Object.entries(PINNED)) {
		const pkg = packageFile(module, 'package.json', base);
		const version = existsSync(pkg) ? JSON.parse(readFileSync(pkg, 'utf8')).version : null;
		const hashes = {};
		for (const file of files) {
			const path = packageFile(module, file, base);
			hashes[file] = existsSync(path) ? sha256(readFileSync(path)) : null;
		}
		pins[module] = { version, files: hashes };
	}
	return pins;
}

const UPGRADE =
	'to upgrade, pin the new version exactly in package.json, npm install, compare the replaced modules with the new ones, run the property tests, then `npm run pins -- --write` (README.md, "Upgrading Ink")';

/**
 * What differs between the recorded pins (scripts/pins.json) and the installed ones: one
 * message per package or file, naming it, the expected and the found, and how to upgrade.
 * Empty when all match.
 */
export function pinProblems(recorded, installed) {
	const problems = [];
	for (const module of Object.keys({ ...PINNED, ...recorded, ...installed })) {
		const want = recorded[module];
		const found = installed[module];
		if (!want || !found || !(module in PINNED)) {
			problems.push(
				`${module}: ${want ? 'recorded' : 'not recorded'} in scripts/pins.json, ${module in PINNED ? 'patched' : 'no longer patched'} by the build; ${UPGRADE}`,
			);
			continue;
		}
		if (want.version !== found.version) {
			problems.push(
				`${module}: expected version ${want.version}, found ${found.version ?? 'none installed'}; ${UPGRADE}`,
			);
			continue;
		}
		for (const file of Object.keys({ ...want.files, ...found.files }))
			if (want.files[file] !== found.files[file])
				problems.push(
					`${module}/${file}: expected sha256 ${want.files[file] ?? '(not recorded)'}, found ${found.files[file] ?? '(no such file)'}; ${UPGRADE}`,
				);
	}
	return problems;
}

/** The pins recorded in scripts/pins.json. */
export const recordedPins = () => JSON.parse(readFileSync(PINS_FILE, 'utf8'));

/** Throws, with every problem, unless the installed packages are the pinned ones. */
export function checkPins(recorded = recordedPins(), installed = installedPins()) {
	const problems = pinProblems(recorded, installed);
	if (problems.length > 0)
		throw new Error(
			`build: the packages ctpool patches are not the pinned ones:\n  ${problems.join('\n  ')}`,
		);
}

/**
 * The Vite plugin that makes the tests (vitest.config.ts) render through the same Ink modules
 * as the bundle: INK_REPLACEMENTS, at Ink's imports. Ink and ink-testing-library must be
 * inlined (test.server.deps.inline) for Ink's own imports to reach it. The start-up patches
 * (SOURCE_PATCHES, LAZY) only change how the bundle loads; test/install/bundle.test.ts holds
 * the patched string-width to the stock one.
 */
export function oneInkVitePlugin() {
	const prefix = '\0ctpool-ink-kept:';
	return {
		name: 'ctpool-one-ink',
		enforce: 'pre',
		resolveId(specifier, importer) {
			if (!importer) return null;
			const to = inkReplacementFor(importer, specifier);
			if (!to) return null;
			return to.file ?? `${prefix}${to.made}`;
		},
		load(id) {
			if (id.startsWith(prefix)) return inkKeptModule(id.slice(prefix.length));
			// Ink's files name source maps of sources it does not ship: read without them (else
			// a warning for each file of Ink in every test run)
			const path = id.split('?')[0] ?? '';
			if (!INLINE_FOR_ONE_INK.some((p) => p.test(path)) || !path.endsWith('.js')) return null;
			return {
				code: readFileSync(path, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, ''),
				map: null,
			};
		},
	};
}

/** Folder patterns of the packages the tests must inline for oneInkVitePlugin to apply. */
export const INLINE_FOR_ONE_INK = [
	/node_modules[\\/]ink[\\/]/,
	/node_modules[\\/]ink-testing-library[\\/]/,
];
