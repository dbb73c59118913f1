/** Text output of commands: ages, aligned tables, colours. Cluster strings are bounded and sanitised here. */

import stringWidth from 'string-width';
import { bounded } from '../text/sanitize.js';

/** An age as kubectl prints it: 45s, 3m20s, 15m, 5h10m, 3d4h ('<unknown>' without a time). */
export function formatAge(ms: number | null, now: number): string {
	if (ms === null) return '<unknown>';
	const s = Math.max(0, Math.floor((now - ms) / 1000));
	if (s < 120) return `${s}s`;
	const m = Math.floor(s / 60);
	if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
	if (m < 180) return `${m}m`;
	const h = Math.floor(m / 60);
	if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
	if (h < 48) return `${h}h`;
	const d = Math.floor(h / 24);
	if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
	return `${d}d`;
}

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
