/** The results table (text and Markdown) and the JSON results file. */

import type { ResultRow } from './context.js';
import type { Spread } from './stats.js';

/** A number for the table: whole above 100, one decimal below. */
export function formatNumber(v: number): string {
	if (!Number.isFinite(v)) return '-';
	const a = Math.abs(v);
	if (a >= 100 || Number.isInteger(v)) return v.toFixed(0);
	return v.toFixed(1);
}

/** `median [min-max]` of a spread (just the median when there was one round or they agree). */
export function formatSpread(s: Spread | undefined): string {
	if (!s) return '';
	const med = formatNumber(s.median);
	if (!Number.isFinite(s.median)) return med;
	if (s.rounds.length <= 1 || s.min === s.max) return med;
	return `${med} [${formatNumber(s.min)}-${formatNumber(s.max)}]`;
}

/** ctpool's median over the baseline's, or '' without a baseline. */
export function ratio(row: ResultRow): string {
	if (!row.baseline || !Number.isFinite(row.baseline.median) || row.baseline.median === 0)
		return '';
	if (!Number.isFinite(row.ctpool.median)) return '';
	return `${(row.ctpool.median / row.baseline.median).toFixed(2)}x`;
}

function cells(row: ResultRow): string[] {
	return [
		row.scenario,
		`${row.metric} (${row.unit})`,
		formatSpread(row.ctpool),
		formatSpread(row.baseline),
		row.baselineName ?? '',
		ratio(row),
		row.target?.text ?? '',
		row.target ? (row.target.met ? 'yes' : 'NO') : '',
	];
}

const HEADERS = [
	'scenario',
	'metric',
	'ctpool median [min-max]',
	'baseline median [min-max]',
	'baseline',
	'ratio',
	'target',
	'met',
];

/** The results as a fixed-width text table. */
export function textTable(rows: readonly ResultRow[]): string {
	const all = [HEADERS, ...rows.map(cells)];
	const widths = HEADERS.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
	return all
		.map((r) =>
			r
				.map((c, i) => c.padEnd(widths[i]!))
				.join('  ')
				.trimEnd(),
		)
		.join('\n');
}

/** The results as a Markdown table (for the README and the issue). */
export function markdownTable(rows: readonly ResultRow[]): string {
	const line = (r: string[]) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
	return [line(HEADERS), line(HEADERS.map(() => '---')), ...rows.map((r) => line(cells(r)))].join(
		'\n',
	);
}
