/** The banner that says the table may be out of date, and why. */

import { Text } from 'ink';
import { connectionView } from '../staleness.js';
import { clean } from '../text-fit.js';
import { useTheme } from '../theme.js';
import { useConsole } from '../use-console.js';

/** The stale banner (one line), or nothing while the watches are live. */
export function StaleBanner() {
	const theme = useTheme();
	const connection = useConsole((s) => s.connection);
	const now = useConsole((s) => s.now);
	const view = connectionView(connection, now);
	if (!view.banner) return null;
	return (
		<Text wrap="truncate" inverse bold color={theme.error}>
			{' STALE '}
			<Text>{` ${clean(view.banner)} · the table may be out of date`}</Text>
		</Text>
	);
}
