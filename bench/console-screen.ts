/**
 * Reading ctpool's console screen: when is the members table of a pool complete (the watch
 * is live, the header counts match the cluster, the first rows are drawn in index order).
 */

/** What a complete members table must show. */
export interface CompleteTable {
	pool: string;
	/** Members that exist (the header's `observed`). */
	observed: number;
	/** Members whose pod is Running and Ready (the header's `ready`). */
	ready: number;
	/** Member rows that must be drawn below the column titles (the first ones, in order). */
	rows: number;
}

/** The member rows drawn under the column titles (their names, in screen order). */
export function drawnMembers(lines: readonly string[], pool: string): string[] {
	const title = lines.findIndex((l) => /^NAME\s+STATE\b/.test(l));
	if (title < 0) return [];
	const names: string[] = [];
	const row = new RegExp(`^(${pool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+)\\s+[A-Z][a-z]+`);
	for (const line of lines.slice(title + 1)) {
		const m = line.match(row);
		if (!m) break;
		names.push(m[1]!);
	}
	return names;
}

/** True when the screen shows the complete members table. */
export function isTableComplete(lines: readonly string[], want: CompleteTable): boolean {
	if (!lines[0]?.includes('● live')) return false;
	const counts = `observed ${want.observed} ready ${want.ready} `;
	if (!lines.some((l) => l.includes(counts))) return false;
	const names = drawnMembers(lines, want.pool);
	if (names.length < want.rows) return false;
	for (let i = 0; i < want.rows; i++) if (names[i] !== `${want.pool}-${i + 1}`) return false;
	return true;
}
