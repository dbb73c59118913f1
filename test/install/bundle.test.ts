import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { LAZY, NARROW_RANGES } from '../../scripts/replacements.mjs';
import { builtOrSay, CLI } from '../support/built-cli.js';

const built = builtOrSay("the bundle's stand-in checks");

const CHUNKS = join(dirname(CLI), 'chunks');

/** The bundle's chunks (scripts the chunk loader runs). */
function chunkFiles(): string[] {
	return readdirSync(CHUNKS).filter((f) => /^[\w-]+\.js$/.test(f));
}

/** The name of the chunk of the bundle that holds a text. */
function chunkNameWith(text: string): string {
	const file = chunkFiles().find((f) => readFileSync(join(CHUNKS, f), 'utf8').includes(text));
	if (!file) throw new Error(`no chunk of the bundle holds ${text}`);
	return file.replace(/\.js$/, '');
}

/** The chunk of the bundle that holds a text, loaded as the bin loads it (without a cache). */
async function chunkWith(text: string): Promise<Record<string, unknown>> {
	const { ChunkLoader } = (await import(pathToFileURL(join(CHUNKS, 'loader.mjs')).href)) as {
		ChunkLoader: new (
			dir: string,
			cacheDir: null,
		) => { load(name: string): Record<string, unknown> };
	};
	return new ChunkLoader(CHUNKS, null).load(chunkNameWith(text));
}

// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
// only when the file is run alone before `npm run build`.
describe.skipIf(!built)("the bundle's stand-ins (scripts/build.mjs)", () => {
	it("string-width, its segmenter and emoji pattern made on first use, measures as the package's", async () => {
		const chunk = await chunkWith('madeSegmenter');
		const bundled = Object.values(chunk).find(
			(v): v is (s: string) => number => typeof v === 'function' && v.name === 'stringWidth',
		);
		expect(bundled).toBeDefined();
		const samples = [
			'desk-1',
			'',
			'● live · ns corral …',
			'界面',
			'😀',
			'👨‍👩‍👧',
			'1️⃣',
			'e\u0301',
			'\u001b[31mred\u001b[39m',
			'ｶﾞ',
			'\u200b',
		];
		expect(samples.map((s) => bundled?.(s))).toEqual(samples.map((s) => stringWidth(s)));
	});

	it('string-width measures every character of its wider fast path (NARROW_RANGES) as the package does', async () => {
		const chunk = await chunkWith('madeSegmenter');
		const bundled = Object.values(chunk).find(
			(v): v is (s: string) => number => typeof v === 'function' && v.name === 'stringWidth',
		);
		const chars: string[] = [];
		for (const [from, to] of NARROW_RANGES)
			for (let c = from; c <= to; c++) chars.push(String.fromCharCode(c));
		// every one alone, all of them side by side in both orders, and beside a mark, an emoji
		// and a wide character (which leave the fast path)
		const texts = [
			...chars,
			chars.join(''),
			[...chars].reverse().join(''),
			'● live · ns corral … ─ ↑↓ ✓ ⏎',
			'·\u0301',
			'✓\uFE0F',
			'─😀',
			'…界',
		];
		const stock = texts.map((t) => stringWidth(t));
		expect(texts.map((t) => bundled?.(t))).toEqual(stock);
		expect(stock.slice(0, chars.length).every((w) => w === 1)).toBe(true);
	});

	it("loads the console's modules without loading Node's fetch (Yoga reads its embedded WebAssembly itself)", async () => {
		const console = chunkNameWith('function runConsoleSession');
		// the chunk has run once its load returns: Yoga's WebAssembly is started by then
		const script = `const { ChunkLoader } = await import(${JSON.stringify(pathToFileURL(join(CHUNKS, 'loader.mjs')).href)});
			const chunk = new ChunkLoader(${JSON.stringify(CHUNKS)}, null).load(${JSON.stringify(console)});
			process.stdout.write(JSON.stringify({ run: typeof chunk.runConsoleSession, undici: process.moduleLoadList.filter((m) => m.includes('undici')) }));`;
		const loaded = JSON.parse(
			execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
		) as { run: string; undici: string[] };
		expect(loaded).toEqual({ run: 'function', undici: [] });
	});

	it('keeps each module loaded on demand (LAZY) in a file of its own, which its stand-in loads', () => {
		const texts = chunkFiles().map((f) => readFileSync(join(CHUNKS, f), 'utf8'));
		const load = createRequire(join(CHUNKS, 'chunk.js'));
		for (const [name, lazy] of Object.entries(LAZY)) {
			const { names, fn } = lazy;
			const objects = lazy.objects ?? [];
			const file = `lazy-${name.replace(/[^a-z0-9]+/gi, '-')}.cjs`;
			// exactly one chunk loads it, by the path the chunks' require resolves beside them
			expect(
				texts.filter((t) => t.includes(`"./${file}"`)),
				name,
			).toHaveLength(1);
			const real = load(`./${file}`) as Record<string, unknown>;
			for (const n of [...names, ...objects])
				expect(typeof real[n], `${name}.${n}`).toBe('function');
			if (fn) expect(typeof real.default, `${name} default`).toBe('function');
		}
		// their code is in no chunk: node-fetch's URL tables (tr46), RE2's engine
		expect(texts.some((t) => t.includes('xn--'))).toBe(false);
		expect(texts.some((t) => t.includes('MatcherInput'))).toBe(false);
	});
});
