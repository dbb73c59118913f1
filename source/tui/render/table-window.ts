/** Which rows of a long table, or lines of a long text, are on screen. */

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

/** How far the text of the details, help or log view can scroll (the view sets it as it renders). */
export interface ScrollInfo {
	/** The last first line it can show. */
	max: number;
}

/**
 * The first line of a text of total lines shown in height lines, scrolled to `scroll` (-1:
 * the end); records in info how far it can scroll.
 */
export function textWindow(
	total: number,
	height: number,
	scroll: number,
	info: ScrollInfo,
): number {
	const max = Math.max(0, total - Math.max(0, height));
	info.max = max;
	return scroll < 0 ? max : Math.min(scroll, max);
}

/** `lines 3-20 of 41`, or `all 12 lines` when the text fits. */
export function linePosition(start: number, shown: number, total: number): string {
	if (total <= shown) return `${total} line${total === 1 ? '' : 's'}`;
	return `lines ${start + 1}-${start + shown} of ${total}`;
}
