/** Fitting table columns to the terminal width: low-priority columns give way first. */

/** How a cell is coloured: by the member's state, as a warning, as an error, or muted. */
export type CellTone = 'state' | 'warn' | 'error' | 'muted' | undefined;

/** A cell's text and tone (not yet sanitised or fitted). */
export interface Cell {
	text: string;
	tone?: CellTone;
}

/** How wide a column may be, and how soon it gives way. */
export interface WidthRules {
	/** Narrowest useful width. */
	min: number;
	/** The width it should have before a lower-priority column is shown (default min). */
	want?: number;
	/** Widest it grows to (Infinity: takes what is left). */
	max: number;
	/** A width it grows to before any column grows to its maximum (default: max). */
	ample?: number;
	/** 0 is kept longest; higher numbers give way first. */
	priority: number;
	align?: 'left' | 'right';
}

/** The NAME (or POOL) column: as wide as the longest name, 4 to 40 cells, kept longest. */
export function nameColumnRules(longest: number): WidthRules {
	const width = Math.max(4, Math.min(longest, 40));
	return { min: width, max: width, priority: 0 };
}

/** A column of a table. */
export interface ColumnSpec<K extends string = string> extends WidthRules {
	key: K;
	title: string;
}

/**
 * A column as a record: its header, and its width rules for what the table's rows hold
 * (`values`, computed once per row); false when it has nothing to show and is left out.
 * A table's records add its cell and sort key.
 */
export interface ColumnRecord<K extends string, V> {
	key: K;
	title: string;
	rules: (values: V) => WidthRules | false;
}

/** A column spec that carries its record, so a placed column gives its cell and sort key. */
export type RecordSpec<R extends ColumnRecord<string, never>> = ColumnSpec<R['key']> & {
	record: R;
};

/** The columns of the records that have something to show, in their order, sized by `values`. */
export function columnSpecs<V, R extends ColumnRecord<string, V>>(
	records: readonly R[],
	values: V,
): RecordSpec<R>[] {
	const out: RecordSpec<R>[] = [];
	for (const record of records) {
		const rules = record.rules(values);
		if (rules) out.push({ ...rules, key: record.key, title: record.title, record });
	}
	return out;
}

/** A column with the width it got. */
export type PlacedColumn<C extends ColumnSpec = ColumnSpec> = C & { width: number };

/**
 * The columns that fit in width (one space between columns), in their original order, each
 * with its width. Columns are taken by priority while every column taken so far still gets
 * its wanted width (the first columns only need their minimum); then the spare width goes
 * to the bounded columns by priority up to their maximum, and the rest to the unbounded ones.
 */
export function layoutColumns<C extends ColumnSpec>(
	columns: readonly C[],
	width: number,
	gap = 1,
): PlacedColumn<C>[] {
	const byPriority = [...columns].sort((a, b) => a.priority - b.priority);
	const chosen: C[] = [];
	let wanted = 0;
	let minimum = 0;
	for (const c of byPriority) {
		const g = chosen.length > 0 ? gap : 0;
		const want = Math.max(c.min, c.want ?? c.min);
		if (wanted + g + want <= width) {
			chosen.push(c);
			wanted += g + want;
			minimum += g + c.min;
		} else if (c.priority === 0 && minimum + g + c.min <= width) {
			// columns of priority 0 stay as long as their minimum fits
			chosen.push(c);
			wanted += g + c.min;
			minimum += g + c.min;
		}
	}
	const widths = new Map<C, number>();
	let spare = width;
	for (const [i, c] of chosen.entries()) {
		widths.set(c, c.min);
		spare -= c.min + (i > 0 ? gap : 0);
	}
	// wanted widths first, then ample ones, then bounded maxima, then the rest to unbounded columns
	const stages: Array<(c: C) => number> = [
		(c) => Math.max(c.min, c.want ?? c.min),
		(c) => Math.min(c.max, c.ample ?? (Number.isFinite(c.max) ? c.max : (widths.get(c) ?? c.min))),
		(c) => (Number.isFinite(c.max) ? c.max : (widths.get(c) ?? c.min)),
		(c) => (Number.isFinite(c.max) ? (widths.get(c) ?? c.min) : Number.POSITIVE_INFINITY),
	];
	for (const target of stages)
		for (const c of chosen) {
			if (spare <= 0) break;
			const cur = widths.get(c) ?? c.min;
			const grow = Math.min(spare, Math.max(0, target(c) - cur));
			widths.set(c, cur + grow);
			spare -= grow;
		}
	const set = new Set(chosen);
	return columns.filter((c) => set.has(c)).map((c) => ({ ...c, width: widths.get(c) ?? c.min }));
}
