/**
 * The bundle's ES module chunks as scripts (CommonJS bodies), which the chunk loader
 * (source/script-loader.ts) runs with V8's code cache. Shared by the build (scripts/build.mjs)
 * and the loader's tests.
 */

import { transformSync } from 'esbuild';

/** The chunks' first line as esbuild writes them (the build's banner). */
export const BANNER =
	"import { createRequire as __ctpoolCreateRequire } from 'node:module'; const require = __ctpoolCreateRequire(import.meta.url);";

/**
 * A chunk's text (file: its name, for errors) as a script. Chunks go on naming each other as
 * before (./chunk-X.mjs): the loader resolves those names. Throws when the chunk does not start
 * with the banner, or holds what a script cannot (a top-level await) or the loader does not
 * take.
 */
export function chunkAsScript(file, source) {
	// an entry's #! line is the bin's
	let text = source.replace(/^#!.*\n/, '');
	if (!text.startsWith(BANNER))
		throw new Error(`build: ${file} does not start with the bundle's banner`);
	// the loader's require is the chunk's own (CommonJS dependencies call it for Node's built-ins)
	text = text.slice(BANNER.length);
	// import() of a chunk is the loader's (the chunk's exports, as an ES module's namespace):
	// esbuild's own would take them for a CommonJS module's, whose default is all of them
	text = text.replace(/\bimport\(("\.\/[\w-]+\.mjs")\)/g, '__ctpool_import($1)');
	// import.meta is the loader's (its url is the chunk's file); any other import() a require
	const code = transformSync(text, {
		format: 'cjs',
		loader: 'js',
		define: { 'import.meta': '__ctpool_meta' },
		supported: { 'dynamic-import': false },
		minifyWhitespace: true,
		minifySyntax: true,
		logLevel: 'silent',
		sourcefile: file,
	}).code;
	if (/require\("\.\/[\w-]+\.mjs"\),1\)/.test(code))
		throw new Error(`build: ${file} imports a chunk in a way the loader does not take`);
	return code;
}
