/** Word-wrapping by display width, for prompts and messages that must be read in full. */

import stringWidth from 'string-width';
import { sanitize } from '../text/sanitize.js';
import { truncate } from './text-fit.js';

/** The lines of a text wrapped to width (words longer than a line are cut). */
export function wrapText(value: unknown, width: number): string[] {
	const words = sanitize(value).split(' ').filter(Boolean);
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
