import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TwoGenerationCache } from '../../source/text/memo.js';
import Output, { rowCounts } from '../../source/tui/render/ink-output.js';

/** Ink's own Output (not exported by its package): the class the build replaces. */
interface InkOutput {
	write(x: number, y: number, text: string, options: { transformers: Transformer[] }): void;
	clip(clip: Clip): void;
	unclip(): void;
	get(): { output: string; height: number };
}
type Transformer = (line: string, index: number) => string;
type Clip = { x1?: number; x2?: number; y1?: number; y2?: number };
type Op =
	| { type: 'write'; x: number; y: number; text: string; transform: boolean }
	| { type: 'clip'; clip: Clip }
	| { type: 'unclip' };

const inkBuild = dirname(createRequire(import.meta.url).resolve('ink'));
const { default: InkOutputClass } = (await import(
	pathToFileURL(join(inkBuild, 'output.js')).href
)) as {
	default: new (options: { width: number; height: number }) => InkOutput;
};

// glyphs of one and two cells, a combining mark, and the styles Ink's colours and Text use
const piece = fc.constantFrom(
	'a',
	'b',
	' ',
	'ID',
	'界',
	'😀',
	'e\u0301',
	'\u001b[31m',
	'\u001b[39m',
	'\u001b[1m',
	'\u001b[22m',
	'\u001b[7m',
	'\u001b[27m',
	'\u001b[38;5;208m',
	'\u001b[0m',
	'\u001b[m',
	'\u001b[1;31m',
	'\u001b[2m',
	'\u001b[41m',
	'\u001b[49m',
	'\u001b[38;2;1;2;3m',
	'\u001b[4:3m',
	'\u001b]8;;https://x\u0007',
	'\u001b[2J',
	'\t',
	'\u009b',
	'\n',
);
const text = fc.array(piece, { maxLength: 30 }).map((p) => p.join(''));
const optional = (n: number) => fc.option(fc.integer({ min: -3, max: n + 3 }), { nil: undefined });
const op = (width: number, height: number): fc.Arbitrary<Op> =>
	fc.oneof(
		{
			weight: 4,
			arbitrary: fc.record({
				type: fc.constant('write' as const),
				x: fc.integer({ min: -3, max: width + 3 }),
				y: fc.integer({ min: -3, max: height + 3 }),
				text,
				transform: fc.boolean(),
			}),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				type: fc.constant('clip' as const),
				clip: fc.record({
					x1: optional(width),
					x2: optional(width),
					y1: optional(height),
					y2: optional(height),
				}),
			}),
		},
		{ weight: 1, arbitrary: fc.constant({ type: 'unclip' as const }) },
	);
const frame = fc
	.record({ width: fc.integer({ min: 0, max: 14 }), height: fc.integer({ min: 0, max: 6 }) })
	.chain(({ width, height }) =>
		fc.record({
			width: fc.constant(width),
			height: fc.constant(height),
			ops: fc.array(op(width, height), { maxLength: 12 }),
		}),
	);

/** Plays a frame's operations into an Output; the transformer records every call it gets. */
function play(output: InkOutput, ops: readonly Op[], calls: string[]): string {
	const transformer: Transformer = (line, index) => {
		calls.push(`${index}:${line}`);
		return `${index}${line.toUpperCase()}`;
	};
	for (const o of ops) {
		if (o.type === 'write')
			output.write(o.x, o.y, o.text, { transformers: o.transform ? [transformer] : [] });
		else if (o.type === 'clip') output.clip(o.clip as never);
		else output.unclip();
	}
	const { output: text, height } = output.get();
	return `${height}\n${text}`;
}

describe("the console's Output (in place of Ink's)", () => {
	it("is compared with Ink's own Output (the tests' Ink renders with the console's)", () => {
		expect(InkOutputClass).not.toBe(Output);
		expect(InkOutputClass.name).toBe('Output');
	});

	it('gives the frame Ink gives, calling the transformers the same way, the first time and from its caches', () => {
		fc.assert(
			fc.property(frame, ({ width, height, ops }) => {
				const inkCalls: string[] = [];
				const ours: string[] = [];
				const expected = play(new InkOutputClass({ width, height }), ops, inkCalls);
				expect(play(new Output({ width, height }), ops, ours)).toBe(expected);
				expect(ours).toEqual(inkCalls);
				// the same frame again: every row from the cache
				expect(play(new Output({ width, height }), ops, [])).toBe(expected);
			}),
			{ numRuns: 600 },
		);
	});

	it('draws a line written at the first column as Ink does, styles run by run', () => {
		// the quick way (no cell per glyph) only applies to such rows: here every row is one
		fc.assert(
			fc.property(
				fc.integer({ min: 0, max: 20 }),
				fc.array(text, { minLength: 1, maxLength: 4 }),
				(width, lines) => {
					const ops: Op[] = lines.map((t, y) => ({
						type: 'write',
						x: 0,
						y,
						text: t.replaceAll('\n', ''),
						transform: false,
					}));
					const height = lines.length;
					const expected = play(new InkOutputClass({ width, height }), ops, []);
					expect(play(new Output({ width, height }), ops, [])).toBe(expected);
				},
			),
			{ numRuns: 1500 },
		);
	});

	it('keeps a row that was drawn before instead of building it again', () => {
		const draw = () => {
			const output = new Output({ width: 10, height: 2 });
			output.write(0, 0, '\u001b[1mID\u001b[22m  desk-1', { transformers: [] });
			output.write(0, 1, 'desk-2', { transformers: [] });
			return output.get().output;
		};
		const before = { ...rowCounts };
		expect(draw()).toBe('\u001b[1mID\u001b[22m  desk-1\ndesk-2');
		expect(draw()).toBe('\u001b[1mID\u001b[22m  desk-1\ndesk-2');
		expect(rowCounts.built - before.built).toBeLessThanOrEqual(2);
		expect(rowCounts.reused - before.reused).toBeGreaterThanOrEqual(2);
	});
});

describe('TwoGenerationCache', () => {
	it('keeps what is used and forgets, a generation at a time, what is not', () => {
		const cache = new TwoGenerationCache<number>(2);
		cache.set('a', 1);
		cache.set('b', 2);
		cache.set('c', 3); // a and b are the old generation now
		expect(cache.get('a')).toBe(1); // used: moved to the young one, beside c
		cache.set('d', 4); // the young one was full: a and c age, b is gone
		expect(cache.get('b')).toBeUndefined();
		expect(cache.get('a')).toBe(1);
		expect(cache.get('c')).toBe(3);
		expect(cache.size).toBeLessThanOrEqual(4);
	});
});
