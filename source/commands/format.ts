/** Text output of commands: aligned tables, colours. Cluster strings are bounded and sanitised here. */

import stringWidth from 'string-width';
import { bounded } from '../text/sanitize.js';

/** A table cell: plain text (sanitised) and an optional colour code applied after padding. */
export interface Cell {
	text: string;
	color?: string;
}

/**
 * Renders rows as columns separated by three spaces; the last column is not padded. Every
 * cell is cut to the display bound first (a huge cluster string never widens the table).
 */
export function renderTable(
	headers: string[],
	rows: Array<Array<string | Cell>>,
	color: boolean,
): string[] {
	const cells = rows.map((row) =>
		row.map((c) =>
			typeof c === 'string' ? { text: bounded(c) } : { ...c, text: bounded(c.text) },
		),
	);
	const widths = headers.map((h, i) =>
		Math.max(stringWidth(h), ...cells.map((r) => stringWidth(r[i]?.text ?? ''))),
	);
	const line = (row: Cell[]) =>
		row
			.map((c, i) => {
				const last = i === row.length - 1;
				const padded = last ? c.text : c.text + ' '.repeat(widths[i]! - stringWidth(c.text));
				return color && c.color && c.text
					? `\u001b[${c.color}m${c.text}\u001b[0m${padded.slice(c.text.length)}`
					: padded;
			})
			.join('   ')
			.trimEnd();
	return [line(headers.map((h) => ({ text: h }))), ...cells.map(line)];
}

/** The colour of a member state. */
export function stateColor(state: string): string | undefined {
	switch (state) {
		case 'Ready':
			return '32';
		case 'Starting':
		case 'Stopped':
			return '33';
		case 'Failed':
		case 'Unschedulable':
			return '31';
		case 'Terminating':
		case 'Missing':
			return '90';
		default:
			return undefined;
	}
}
