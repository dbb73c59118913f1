/** What the console shows when the terminal is smaller than it needs. */

import { Box, Text } from 'ink';

/** Smallest terminal the console draws in. */
export const MIN_COLUMNS = 60;
/** Smallest terminal height the console draws in. */
export const MIN_ROWS = 15;

/** Props of the too-small message. */
export interface TooSmallProps {
	columns: number;
	rows: number;
}

/** A clear message instead of a broken layout. */
export function TooSmall({ columns, rows }: TooSmallProps) {
	return (
		<Box flexDirection="column" width={columns}>
			<Text wrap="wrap">
				Terminal too small: {columns}x{rows}. ctpool needs at least {MIN_COLUMNS}x{MIN_ROWS}.
			</Text>
			<Text wrap="wrap">Enlarge the window (q quits).</Text>
		</Box>
	);
}
