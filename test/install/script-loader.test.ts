/**
 * The chunk loader (source/script-loader.ts): the bundle's ES module chunks, made scripts by
 * the build's chunkAsScript (scripts/chunk-scripts.mjs), run as the modules they were, and
 * their compiled code is kept between runs. In one process (V8 may take a script's code from
 * its own memory on a second compile): test/install/code-cache.test.ts runs them as starts.
 */

import {
	chmodSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BANNER, chunkAsScript } from '../../scripts/chunk-scripts.mjs';
import {
	ChunkLoader,
	chunkName,
	codeCacheDir,
	STALE_INSTALL_MS,
} from '../../source/script-loader.js';

/** Chunks as esbuild writes them (minified ES modules under the banner). */
const CHUNKS: Record<string, string> = {
	// a, b import each other (a cycle); a's count is a live binding
	'chunk-A': `import{twice}from"./chunk-B.mjs";let count=0;function bump(){count++}function strict(){return this===void 0}const url=import.meta.url;async function later(){let{default:c}=await import("./chunk-C.mjs");return c}export{bump,count,later,strict,twice,url};`,
	'chunk-B': `import{count}from"./chunk-A.mjs";import{join}from"node:path";function twice(){return count*2}const joined=join("a","b");export{joined,twice};`,
	'chunk-C': `var c_default="the default";export{c_default as default};`,
};

let dir: string;
let cache: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'ctpool-chunks-'));
	cache = join(dir, 'cache');
	for (const [name, text] of Object.entries(CHUNKS))
		writeFileSync(join(dir, `${name}.js`), chunkAsScript(`${name}.mjs`, BANNER + text));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the chunk loader', () => {
	it('runs the chunks as the ES modules they were: imports, a cycle, live bindings, import(), import.meta, strict mode', async () => {
		const a = new ChunkLoader(dir, null).load('chunk-A') as {
			bump(): void;
			count: number;
			twice(): number;
			strict(): boolean;
			url: string;
			later(): Promise<string>;
		};
		expect(a.count).toBe(0);
		a.bump();
		a.bump();
		// the importer (and a's own exports) see the binding as it is now
		expect(a.count).toBe(2);
		expect(a.twice()).toBe(4);
		// called alone, a strict function has no this (a sloppy one would have the global object)
		const { strict } = a;
		expect(strict()).toBe(true);
		expect(a.url).toBe(pathToFileURL(join(dir, 'chunk-A.js')).href);
		// import() of a chunk gives its exports, its default among them (not the whole module)
		await expect(a.later()).resolves.toBe('the default');
	});

	it('loads each chunk once, and Node built-ins through Node', () => {
		const loader = new ChunkLoader(dir, null);
		const b = loader.load('chunk-B');
		expect(loader.load('chunk-B')).toBe(b);
		expect(b.joined).toBe(join('a', 'b'));
	});

	it('fails the load of a chunk that throws, every time it is loaded', () => {
		writeFileSync(
			join(dir, 'chunk-T.js'),
			chunkAsScript('chunk-T.mjs', `${BANNER}throw new Error("no");export const t=1;`),
		);
		const loader = new ChunkLoader(dir, null);
		expect(() => loader.load('chunk-T')).toThrow('no');
		expect(() => loader.load('chunk-T')).toThrow('no');
	});

	it('names chunks by the specifiers esbuild writes, and nothing else', () => {
		expect(chunkName('./chunk-X7.mjs')).toBe('chunk-X7');
		expect(chunkName('./chunks/main-Y.mjs')).toBe('main-Y');
		expect(chunkName('./lazy-node-fetch.cjs')).toBeNull();
		expect(chunkName('node:fs')).toBeNull();
		expect(chunkName('../chunk-X7.mjs')).toBeNull();
		expect(chunkName('../../etc/passwd.mjs')).toBeNull();
	});

	it("keeps the chunks' compiled code: written once at the end of a run, read by the next", () => {
		const first = new ChunkLoader(dir, cache);
		first.load('chunk-A');
		expect(first.counts()).toEqual({ cached: 0, compiled: 2 });
		expect(first.saveCode()).toBe(2);
		// nothing left to write
		expect(first.saveCode()).toBe(0);
		expect(readdirSync(cache).sort()).toEqual(['chunk-A.cache', 'chunk-B.cache']);
		// the user's alone
		expect(statSync(cache).mode & 0o777).toBe(0o700);
		expect(statSync(join(cache, 'chunk-A.cache')).mode & 0o777).toBe(0o600);
		const next = new ChunkLoader(dir, cache);
		expect((next.load('chunk-A') as { twice(): number }).twice()).toBe(0);
		expect(next.counts()).toEqual({ cached: 2, compiled: 0 });
		expect(next.saveCode()).toBe(0);
	});

	it('compiles past a cache V8 refuses, and writes it again', () => {
		mkdirSync(cache, { recursive: true });
		writeFileSync(join(cache, 'chunk-C.cache'), 'not V8 code');
		const loader = new ChunkLoader(dir, cache);
		expect(loader.load('chunk-C').default).toBe('the default');
		expect(loader.counts()).toEqual({ cached: 0, compiled: 1 });
		expect(loader.saveCode()).toBe(1);
		expect(readFileSync(join(cache, 'chunk-C.cache')).toString()).not.toBe('not V8 code');
	});

	it('runs without its cache when the cache cannot be written (a file where its folder would be)', () => {
		writeFileSync(cache, '');
		const loader = new ChunkLoader(dir, join(cache, 'code'));
		expect(loader.load('chunk-C').default).toBe('the default');
		expect(loader.saveCode()).toBe(0);
	});

	it("keeps it in the user's cache folder, per V8 and install; NODE_DISABLE_COMPILE_CACHE turns it off", () => {
		const v8 = `code-${process.versions.v8}-${process.arch}`;
		const home = codeCacheDir('/opt/a/chunks', {}) as string;
		expect(dirname(dirname(home))).toBe(join(homedir(), '.cache', 'ctpool'));
		expect(basename(dirname(home))).toBe(v8);
		// another install, another folder
		expect(codeCacheDir('/opt/b/chunks', {})).not.toBe(home);
		expect(codeCacheDir('/opt/a/chunks', {})).toBe(home);
		expect(dirname(codeCacheDir('/opt/a/chunks', { XDG_CACHE_HOME: '/x' }) as string)).toBe(
			join('/x', 'ctpool', v8),
		);
		const env = { CTPOOL_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' };
		expect(dirname(codeCacheDir('/opt/a/chunks', env) as string)).toBe(join('/c', v8));
		expect(codeCacheDir('/opt/a/chunks', { ...env, NODE_DISABLE_COMPILE_CACHE: '1' })).toBeNull();
	});

	it("keeps the code of this install's chunks alone, and drops installs long unused", () => {
		const code = join(cache, 'v8', 'this');
		const stale = join(cache, 'v8', 'gone');
		const recent = join(cache, 'v8', 'other');
		for (const d of [code, stale, recent]) mkdirSync(d, { recursive: true, mode: 0o700 });
		writeFileSync(join(code, 'chunk-OLD.cache'), 'a chunk this install no longer has');
		const old = (Date.now() - STALE_INSTALL_MS - 60_000) / 1000;
		utimesSync(stale, old, old);
		const loader = new ChunkLoader(dir, code);
		loader.load('chunk-C');
		expect(loader.saveCode()).toBe(1);
		expect(readdirSync(code)).toEqual(['chunk-C.cache']);
		expect(readdirSync(join(cache, 'v8')).sort()).toEqual(['other', 'this']);
	});

	it('neither reads nor writes code in a folder others may write to', () => {
		const code = join(cache, 'shared');
		mkdirSync(code, { recursive: true });
		chmodSync(code, 0o777);
		const first = new ChunkLoader(dir, code);
		first.load('chunk-C');
		expect(first.saveCode()).toBe(0);
		expect(readdirSync(code)).toEqual([]);
		// code planted there is not run
		chmodSync(code, 0o700);
		const made = new ChunkLoader(dir, code);
		made.load('chunk-C');
		expect(made.saveCode()).toBe(1);
		chmodSync(code, 0o777);
		const next = new ChunkLoader(dir, code);
		next.load('chunk-C');
		expect(next.counts()).toEqual({ cached: 0, compiled: 1 });
	});

	it('refuses a chunk without the banner, or with a top-level await', () => {
		expect(() => chunkAsScript('x.mjs', 'export const a=1;')).toThrow(/banner/);
		expect(() => chunkAsScript('x.mjs', `${BANNER}const a=await 1;export{a};`)).toThrow();
	});
});
