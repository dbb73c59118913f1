/** Word-wrapping by display width, for prompts and messages that must be read in full. */

import stringWidth from 'string-width';
import { sanitize } from '../../text/sanitize.js';
import { truncate } from './text-fit.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** A text cut into pieces of at most width columns (wide characters are never split). */
export function hardWrap(value: unknown, width: number): string[] {
	const text = sanitize(value);
	if (width <= 0) return [text];
	// printable ASCII (most log lines): one column a character, cut by length
	if (/^[\x20-\x7e]*$/.test(text)) {
		if (text.length <= width) return [text];
		const parts: string[] = [];
		for (let i = 0; i < text.length; i += width) parts.push(text.slice(i, i + width));
		return parts;
	}
	const out: string[] = [];
	let line = '';
	let used = 0;
	for (const { segment } of segmenter.segment(text)) {
		const w = stringWidth(segment);
		if (used + w > width && line) {
			out.push(line);
			line = '';
			used = 0;
		}
		line += segment;
		used += w;
	}
	out.push(line);
	return out;
}

/**
 * The lines of a text wrapped to width; words longer than a line are cut (with whole, broken
 * over lines instead, so nothing is lost).
 */
export function wrapText(value: unknown, width: number, opts: { whole?: boolean } = {}): string[] {
	const words = sanitize(value)
		.split(' ')
		.filter(Boolean)
		.flatMap((word) =>
			stringWidth(word) <= width ? [word] : opts.whole ? hardWrap(word, width) : [word],
		);
	const lines: string[] = [];
	let line = '';
	for (const word of words) {
		const w = stringWidth(word) > width ? truncate(word, width) : word;
		if (!line) line = w;
		else if (stringWidth(line) + 1 + stringWidth(w) <= width) line += ` ${w}`;
		else {
			lines.push(line);
			line = w;
		}
	}
	if (line || lines.length === 0) lines.push(line);
	return lines;
}
