/** Which rows of a long table are on screen: the window follows the selection. */

/**
 * The first row to show so that the selected row is visible in a window of height rows,
 * moving the previous window as little as possible.
 */
export function windowStart(total: number, selected: number, height: number, prev: number): number {
	if (height <= 0 || total <= height) return 0;
	let start = Math.max(0, Math.min(prev, total - height));
	if (selected < start) start = selected;
	else if (selected >= start + height) start = selected - height + 1;
	return Math.max(0, Math.min(start, total - height));
}
