/** Cluster strings fitted to terminal cells: sanitised, truncated and padded by display width. */

import stringWidth from 'string-width';
import { sanitize } from '../../text/sanitize.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** A cluster value made inert for the terminal (every cluster string goes through this). */
export function clean(value: unknown): string {
	return sanitize(value);
}

/** The number of terminal columns a string takes. */
export function displayWidth(text: string): number {
	return stringWidth(text);
}

/**
 * A sanitised string cut to at most width columns, ending in an ellipsis when cut. Wide
 * characters (CJK, emoji) are never split: the cut falls before them.
 */
export function truncate(value: unknown, width: number): string {
	const text = sanitize(value);
	if (width <= 0) return '';
	if (stringWidth(text) <= width) return text;
	if (width === 1) return '…';
	let out = '';
	let used = 0;
	for (const { segment } of segmenter.segment(text)) {
		const w = stringWidth(segment);
		if (used + w > width - 1) break;
		out += segment;
		used += w;
	}
	return `${out}…`;
}

/** A sanitised string truncated and padded to exactly width columns. */
export function fitCell(value: unknown, width: number, align: 'left' | 'right' = 'left'): string {
	const text = truncate(value, width);
	const pad = Math.max(0, width - stringWidth(text));
	return align === 'left' ? text + ' '.repeat(pad) : ' '.repeat(pad) + text;
}
