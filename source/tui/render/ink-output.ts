/**
 * Ink's Output (ink/build/output.js) with what it computes kept from one frame to the next.
 * The build puts this module in the place of Ink's own (scripts/build.mjs); Ink's renderer
 * makes a new Output for every frame and uses nothing but the four methods below.
 *
 * Ink's get() builds a grid of one object per cell for the whole screen on every frame,
 * tokenizes every line written into it and turns every row back into a string: under a
 * live watch that was most of the console's CPU (3.7 of 6.3 s in a 20 s profile at 200
 * changes/s), though most rows are the same from one frame to the next.
 *
 * Here a row's text is a function of what was written to that row (each write's column and
 * line, in order) and the width, so the rows are built as Ink builds them, by Ink's own
 * functions, only when that composition was not seen before; the tokenized lines and widths
 * are kept too. The clipping, the transformers (called in the same order, on the same lines)
 * and the rows are Ink 6.8's; test/tui/ink-output.test.ts compares the two on generated
 * frames.
 */

import {
	type AnsiCode,
	ansiCodesToString,
	diffAnsiCodes,
	reduceAnsiCodesIncremental,
	type StyledChar,
	styledCharsFromTokens,
	styledCharsToString,
	tokenize,
} from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
import stringWidth from 'string-width';
import { TwoGenerationCache } from '../../text/memo.js';

type Transformer = (line: string, index: number) => string;

interface Clip {
	x1: number | undefined;
	x2: number | undefined;
	y1: number | undefined;
	y2: number | undefined;
}

type Operation =
	| { type: 'write'; x: number; y: number; text: string; transformers: Transformer[] }
	| { type: 'clip'; clip: Clip }
	| { type: 'unclip' };

/** Kept across frames: a few screens' worth of rows and lines, and the widths of glyphs. */
const rows = new TwoGenerationCache<string>(1024);
const styledLines = new TwoGenerationCache<StyledChar[]>(128);
const widths = new TwoGenerationCache<number>(4096);

/** How many rows were built, and how many came from the cache (for tests and profiles). */
export const rowCounts = { built: 0, reused: 0 };

function styledChars(line: string): StyledChar[] {
	let chars = styledLines.get(line);
	if (chars === undefined) {
		chars = styledCharsFromTokens(tokenize(line));
		styledLines.set(line, chars);
	}
	return chars;
}

function widthOf(text: string): number {
	let width = widths.get(text);
	if (width === undefined) {
		width = stringWidth(text);
		widths.set(text, width);
	}
	return width;
}

function widestLine(text: string): number {
	let widest = 0;
	for (const line of text.split('\n')) widest = Math.max(widest, widthOf(line));
	return widest;
}

/** One row as Ink 6.8 builds it: blank cells, each write's styled characters, then a string. */
function buildRow(width: number, writes: readonly (number | string)[]): string {
	const row: (StyledChar | undefined)[] = [];
	for (let x = 0; x < width; x++)
		row.push({ type: 'char', value: ' ', fullWidth: false, styles: [] });
	for (let i = 0; i < writes.length; i += 2) {
		let offsetX = writes[i] as number;
		for (const character of styledChars(writes[i + 1] as string)) {
			row[offsetX] = character;
			const characterWidth = Math.max(1, widthOf(character.value));
			// a wide glyph: the cells it covers are emptied, as Ink does
			for (let index = 1; index < characterWidth; index++)
				row[offsetX + index] = {
					type: 'char',
					value: '',
					fullWidth: false,
					styles: character.styles,
				};
			offsetX += characterWidth;
		}
	}
	return styledCharsToString(row.filter((c): c is StyledChar => c !== undefined)).trimEnd();
}

/** An SGR sequence (colours and styles), the only escape a line drawn the quick way holds. */
const SGR = /\u001b\[[0-9;:]*m/y;
const sgrCodes = new TwoGenerationCache<AnsiCode[] | null>(256);

/** The codes of one SGR sequence, as Ink's tokenizer reads them (null: not only codes). */
function codesOf(sequence: string): AnsiCode[] | null {
	let codes = sgrCodes.get(sequence);
	if (codes === undefined) {
		const tokens = tokenize(sequence);
		codes = tokens.every((t) => t.type === 'ansi') ? (tokens as AnsiCode[]) : null;
		sgrCodes.set(sequence, codes);
	}
	return codes;
}

/**
 * The row Ink builds from one line written at its first column, without a cell per glyph:
 * the same styles between the same runs of text (Ink writes what changes from one glyph's
 * styles to the next, and runs of text share theirs), the same closing codes, the same
 * trimmed end (what the row's blank cells add is trimmed away). Null when the line holds
 * anything but text and SGR sequences: such a row is built glyph by glyph.
 */
function quickRow(line: string): string | null {
	let styles: AnsiCode[] = [];
	let shown: AnsiCode[] | null = null;
	let out = '';
	let from = 0;
	let at = 0;
	const text = (to: number) => {
		if (to <= from) return;
		out += ansiCodesToString(shown === null ? styles : diffAnsiCodes(shown, styles));
		out += line.slice(from, to);
		shown = styles;
	};
	while (at < line.length) {
		const c = line.charCodeAt(at);
		if (c === 0x1b) {
			SGR.lastIndex = at;
			const sequence = SGR.exec(line)?.[0];
			const codes = sequence ? codesOf(sequence) : null;
			if (!sequence || !codes) return null;
			text(at);
			for (const code of codes) styles = reduceAnsiCodesIncremental(styles, [code]);
			at += sequence.length;
			from = at;
		} else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return null;
		else at++;
	}
	text(line.length);
	if (shown !== null) out += ansiCodesToString(diffAnsiCodes(shown, []));
	return out.trimEnd();
}

/** The key of a row: its width and its writes, each as column, length and text. */
function rowKey(width: number, writes: readonly (number | string)[]): string {
	let key = `${width}`;
	for (let i = 0; i < writes.length; i += 2) {
		const line = writes[i + 1] as string;
		key += `|${writes[i]}:${line.length}:${line}`;
	}
	return key;
}

/** The drop-in for Ink's Output class. */
export default class Output {
	width: number;
	height: number;
	private readonly operations: Operation[] = [];

	constructor(options: { width: number; height: number }) {
		this.width = options.width;
		this.height = options.height;
	}

	write(x: number, y: number, text: string, options: { transformers: Transformer[] }): void {
		if (!text) return;
		this.operations.push({ type: 'write', x, y, text, transformers: options.transformers });
	}

	clip(clip: Clip): void {
		this.operations.push({ type: 'clip', clip });
	}

	unclip(): void {
		this.operations.push({ type: 'unclip' });
	}

	get(): { output: string; height: number } {
		// each row's writes, as column and line pairs, in the order Ink would apply them
		const writes: (number | string)[][] = [];
		for (let y = 0; y < this.height; y++) writes.push([]);
		const clips: Clip[] = [];
		for (const operation of this.operations) {
			if (operation.type === 'clip') clips.push(operation.clip);
			if (operation.type === 'unclip') clips.pop();
			if (operation.type !== 'write') continue;
			const { text, transformers } = operation;
			let { x, y } = operation;
			let lines = text.split('\n');
			const clip = clips.at(-1);
			if (clip) {
				const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
				const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
				const x1 = clip.x1 as number;
				const x2 = clip.x2 as number;
				const y1 = clip.y1 as number;
				const y2 = clip.y2 as number;
				if (clipHorizontally && (x + widestLine(text) < x1 || x > x2)) continue;
				if (clipVertically && (y + lines.length < y1 || y > y2)) continue;
				if (clipHorizontally) {
					lines = lines.map((line) => {
						const from = x < x1 ? x1 - x : 0;
						const width = widthOf(line);
						const to = x + width > x2 ? x2 - x : width;
						return sliceAnsi(line, from, to);
					});
					if (x < x1) x = x1;
				}
				if (clipVertically) {
					const from = y < y1 ? y1 - y : 0;
					const height = lines.length;
					const to = y + height > y2 ? y2 - y : height;
					lines = lines.slice(from, to);
					if (y < y1) y = y1;
				}
			}
			let offsetY = 0;
			for (let [index, line] of lines.entries()) {
				const row = writes[y + offsetY];
				// as in Ink: a line past the last row (or before the first) is dropped, and so
				// is every line after it
				if (!row) continue;
				for (const transformer of transformers) line = transformer(line, index);
				row.push(x, line);
				offsetY++;
			}
		}
		let output = '';
		for (let y = 0; y < this.height; y++) {
			const row = writes[y] as (number | string)[];
			let text = '';
			if (row.length > 0) {
				const key = rowKey(this.width, row);
				const known = rows.get(key);
				if (known === undefined) {
					text =
						(row.length === 2 && row[0] === 0 ? quickRow(row[1] as string) : null) ??
						buildRow(this.width, row);
					rows.set(key, text);
					rowCounts.built++;
				} else {
					text = known;
					rowCounts.reused++;
				}
			}
			output += y === 0 ? text : `\n${text}`;
		}
		return { output, height: this.height };
	}
}
