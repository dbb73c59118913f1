/**
 * The chunks' compiled code kept between starts (source/script-loader.ts), each start its own
 * process: the built loader (dist/chunks/loader.mjs) and the built CLI.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BANNER, chunkAsScript } from '../../scripts/chunk-scripts.mjs';
import {
	HEAP_GROWING_PERCENT,
	TUNED_FLAG_DEFAULTS,
	YOUNG_GENERATION_FLAG,
} from '../../source/tui/session/heap-tuning.js';
import { builtOrSay, CLI } from '../support/built-cli.js';

const built = builtOrSay("the chunks' code cache checks");
const LOADER = pathToFileURL(join(dirname(CLI), 'chunks', 'loader.mjs')).href;

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'ctpool-code-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One start: loads a chunk through the built loader, maybe tunes V8's flags, keeps its code. */
function start(chunks: string, cache: string, tune: boolean) {
	const flags = [
		`--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
		YOUNG_GENERATION_FLAG,
		'--expose-gc',
	];
	const script = `
		import { setFlagsFromString } from 'node:v8';
		const { ChunkLoader } = await import(${JSON.stringify(LOADER)});
		const loader = new ChunkLoader(${JSON.stringify(chunks)}, ${JSON.stringify(cache)});
		const a = loader.load('chunk-A');
		${tune ? `for (const f of ${JSON.stringify(flags)}) setFlagsFromString(f);` : ''}
		process.stdout.write(JSON.stringify({ ...loader.counts(), twice: a.twice(), written: loader.saveCode() }));`;
	return JSON.parse(
		execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
	) as { cached: number; compiled: number; twice: number; written: number };
}

// Reason: these run the built bundle (dist/); npm test builds it first, so they skip only
// when the file is run alone before `npm run build`.
describe.skipIf(!built)("the chunks' code kept between starts", () => {
	it("is taken by the next start, also after the console tuned V8's flags", () => {
		const chunks = join(dir, 'chunks');
		const cache = join(dir, 'cache');
		mkdirSync(chunks);
		writeFileSync(
			join(chunks, 'chunk-A.js'),
			chunkAsScript(
				'chunk-A.mjs',
				`${BANNER}import{n}from"./chunk-B.mjs";function twice(){return n*2}export{twice};`,
			),
		);
		writeFileSync(
			join(chunks, 'chunk-B.js'),
			chunkAsScript('chunk-B.mjs', `${BANNER}const n=21;export{n};`),
		);
		// V8 takes a cache only under the flags it was made with: the loader sets the tuned ones
		// back to their defaults before it keeps the code
		expect(TUNED_FLAG_DEFAULTS).toHaveLength(3);
		expect(start(chunks, cache, true)).toEqual({ cached: 0, compiled: 2, twice: 42, written: 2 });
		expect(start(chunks, cache, false)).toEqual({ cached: 2, compiled: 0, twice: 42, written: 0 });
	});

	it("ctpool keeps its chunks' code on its first run and only reads it on the next", () => {
		const env = { ...process.env, CTPOOL_CACHE_DIR: join(dir, 'ctpool') };
		const help = () => execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', env });
		const first = help();
		// a folder per V8, in it one per install
		const [v8] = readdirSync(env.CTPOOL_CACHE_DIR);
		const [install] = readdirSync(join(env.CTPOOL_CACHE_DIR, v8 ?? ''));
		const code = join(env.CTPOOL_CACHE_DIR, v8 ?? '', install ?? '');
		const files = readdirSync(code).sort();
		expect(files.length).toBeGreaterThan(3);
		expect(files.every((f) => /^[\w-]+\.cache$/.test(f))).toBe(true);
		const written = files.map((f) => statSync(join(code, f)).mtimeMs);
		expect(help()).toBe(first);
		expect(readdirSync(code).sort()).toEqual(files);
		expect(files.map((f) => statSync(join(code, f)).mtimeMs)).toEqual(written);
		// and none at all when Node's switch says so
		const off = { ...env, CTPOOL_CACHE_DIR: join(dir, 'off'), NODE_DISABLE_COMPILE_CACHE: '1' };
		expect(execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', env: off })).toBe(
			first,
		);
		expect(() => readdirSync(off.CTPOOL_CACHE_DIR)).toThrow();
	});
});
