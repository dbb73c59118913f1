/**
 * Runs the bundle's chunks as scripts with V8's code cache, so that a start does not compile
 * again what the last one compiled.
 *
 * A start of the console compiled about 2,200 functions and 1.2 MB of chunk source, some 100
 * ms of the 2-core machine's CPU before the first frame. Node 22 keeps ES modules' compiled
 * code on disk (module.enableCompileCache); Node 20, which ctpool supports, has no such cache
 * for ES modules, only vm.Script's cachedData for scripts. So the build turns each chunk into
 * a CommonJS body (scripts/chunk-scripts.mjs) and this runs them: each is compiled with the
 * cache kept for it, if there is one, and at exit the cache of each chunk that had none (or
 * had one V8 refused) is written, holding every function this run compiled in it.
 *
 * The cache is keyed by the chunk's file name, which carries a hash of its content, and V8
 * refuses a cache made by another V8 or under other flags (the chunk is then compiled as if
 * there were none). It lives in the user's cache directory (CTPOOL_CACHE_DIR, else
 * $XDG_CACHE_HOME/ctpool, else ~/.cache/ctpool), in a folder that must be the user's alone;
 * NODE_DISABLE_COMPILE_CACHE turns it off, as it does Node's own. A cache that cannot be read
 * or written only costs the compile.
 */

import { createHash } from 'node:crypto';
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { TUNED_FLAG_DEFAULTS } from './tui/session/heap-tuning.js';

/** A chunk as the build leaves it: the body of a CommonJS module. */
type ChunkFunction = (
	exports: Record<string, unknown>,
	require: (specifier: string) => unknown,
	module: { exports: Record<string, unknown> },
	filename: string,
	dirname: string,
	meta: { url: string },
	importChunk: (specifier: string) => Promise<unknown>,
) => void;

/**
 * Where the compiled code of the chunks in chunkDir is kept, or null when it is not
 * (NODE_DISABLE_COMPILE_CACHE): a folder per V8 and machine kind (two Node versions side by
 * side do not undo each other's), and in it one per install (its chunks' folder), which
 * holds the code of that install's chunks alone (saveCode removes the rest).
 */
export function codeCacheDir(
	chunkDir: string,
	env: NodeJS.ProcessEnv = process.env,
): string | null {
	if (env.NODE_DISABLE_COMPILE_CACHE) return null;
	const base =
		env.CTPOOL_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ctpool');
	const install = createHash('sha256').update(chunkDir).digest('hex').slice(0, 12);
	return join(base, `code-${process.versions.v8}-${process.arch}`, install);
}

/** How long an install's folder of code is kept when no start of it has written (ms). */
export const STALE_INSTALL_MS = 30 * 24 * 3600 * 1000;

/**
 * Whether a folder may hold code ctpool runs: the user's own, and writable by nobody else
 * (compiled code read from it runs as this user, as ssh asks of its keys).
 */
function ownFolder(dir: string): boolean {
	try {
		const st = statSync(dir);
		const uid = process.getuid?.();
		return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
	} catch {
		return false;
	}
}

/** The chunk a specifier of the bundle names (`./chunk-X.mjs`, `./chunks/main-Y.mjs`), or null. */
export function chunkName(specifier: string): string | null {
	const m = /^\.\/(?:chunks\/)?([\w-]+)\.mjs$/.exec(specifier);
	return m ? (m[1] as string) : null;
}

/** Loads the chunks of one directory, each once, keeping their compiled code in cacheDir. */
export class ChunkLoader {
	private readonly loaded = new Map<string, { exports: Record<string, unknown> }>();
	/** The chunks compiled without a cache V8 took: their cache is written by saveCode. */
	private readonly uncached: { name: string; script: Script }[] = [];
	/** Node's require beside the chunks (its built-ins, and the LAZY modules' own files). */
	private readonly nodeRequire: NodeJS.Require;

	constructor(
		readonly dir: string,
		readonly cacheDir: string | null,
	) {
		this.nodeRequire = createRequire(join(dir, 'loader.js'));
	}

	/** How many chunks were compiled from a cache, and how many without one. */
	counts(): { cached: number; compiled: number } {
		return { cached: this.loaded.size - this.uncached.length, compiled: this.uncached.length };
	}

	/** A chunk's exports; it runs on its first load (CommonJS's order: its imports first). */
	load(name: string): Record<string, unknown> {
		const done = this.loaded.get(name);
		if (done) return done.exports;
		const file = join(this.dir, `${name}.js`);
		const module = { exports: {} as Record<string, unknown> };
		// before it runs: a chunk that imports this one back gets the exports made so far
		this.loaded.set(name, module);
		const source = readFileSync(file, 'utf8');
		const cachedData = this.readCache(name);
		// the same wrapper every time (the cache is of this exact text); strict, as the ES
		// module the chunk was
		const script = new Script(
			`(function (exports, require, module, __filename, __dirname, __ctpool_meta, __ctpool_import) {"use strict";${source}\n})`,
			{ filename: file, ...(cachedData ? { cachedData } : {}) },
		);
		if (!cachedData || script.cachedDataRejected) this.uncached.push({ name, script });
		const require = (specifier: string): unknown => {
			const chunk = chunkName(specifier);
			return chunk === null ? this.nodeRequire(specifier) : this.load(chunk);
		};
		// import() of a chunk: its exports, once the chunk has run (a promise, as import()'s)
		const importChunk = (specifier: string) => Promise.resolve().then(() => require(specifier));
		const run = script.runInThisContext() as ChunkFunction;
		const meta = { url: pathToFileURL(file).href };
		try {
			run(module.exports, require, module, file, this.dir, meta, importChunk);
		} catch (err) {
			// not kept half made: a later load runs it again and fails the same way, as an ES
			// module's import would
			this.loaded.delete(name);
			throw err;
		}
		return module.exports;
	}

	private cacheFile(name: string): string | null {
		return this.cacheDir === null ? null : join(this.cacheDir, `${name}.cache`);
	}

	/** Whether the cache folder can be read from (checked once). */
	private usable: boolean | undefined;

	private readCache(name: string): Buffer | undefined {
		const file = this.cacheFile(name);
		if (file === null) return undefined;
		this.usable ??= ownFolder(this.cacheDir as string);
		if (!this.usable) return undefined;
		try {
			return readFileSync(file);
		} catch {
			return undefined;
		}
	}

	/**
	 * Writes the compiled code of every chunk that had no usable cache (a no-op when all had
	 * one); returns how many were written. The V8 flags the console tunes are set back to
	 * their defaults first (the process is ending): V8 refuses a cache made under other flags
	 * than the next start's. It then removes the code of chunks this install no longer has (an
	 * upgrade, a rebuild) and the folders of installs no start has written to in
	 * STALE_INSTALL_MS. Never throws.
	 */
	saveCode(): number {
		const dir = this.cacheDir;
		if (dir === null || this.uncached.length === 0) return 0;
		try {
			mkdirSync(dir, { recursive: true, mode: 0o700 });
			if (!ownFolder(dir)) return 0;
			for (const flag of TUNED_FLAG_DEFAULTS) setFlagsFromString(flag);
		} catch {
			return 0;
		}
		let written = 0;
		for (const { name, script } of this.uncached.splice(0)) {
			const file = join(dir, `${name}.cache`);
			// a file of its own first, then renamed: a start beside this one never reads half of it
			const partial = `${file}.${process.pid}`;
			try {
				writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
				renameSync(partial, file);
				written++;
			} catch {
				rmSync(partial, { force: true });
			}
		}
		this.prune(dir);
		return written;
	}

	private prune(dir: string): void {
		try {
			for (const f of readdirSync(dir)) {
				const chunk = /^([\w-]+)\.cache$/.exec(f)?.[1];
				if (chunk !== undefined && !existsSync(join(this.dir, `${chunk}.js`)))
					rmSync(join(dir, f), { force: true });
			}
			const installs = dirname(dir);
			const now = Date.now();
			for (const other of readdirSync(installs)) {
				const path = join(installs, other);
				if (path !== dir && now - statSync(path).mtimeMs > STALE_INSTALL_MS)
					rmSync(path, { recursive: true, force: true });
			}
		} catch {
			// what is left is removed by a later start
		}
	}
}
