/** The banner that says the table may be out of date, and why. */

import { Text } from 'ink';
import { connectionView } from '../model/staleness.js';
import { fitMessage } from '../render/message-fit.js';
import { clean, displayWidth } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import { useConsole, useTerminalSize } from './use-console.js';

const BADGE = ' STALE ';

/** The stale banner (one line), or nothing while the watches are live. */
export function StaleBanner() {
	const theme = useTheme();
	const connection = useConsole((s) => s.connection);
	const now = useConsole((s) => s.now);
	const { columns } = useTerminalSize();
	const view = connectionView(connection, now);
	if (!view.banner) return null;
	// narrow: the note goes first, then the request text; the cause ("connection refused") stays
	const room = Math.max(10, columns - BADGE.length - 1);
	const whole = `${clean(view.banner)} · the table may be out of date`;
	const text = displayWidth(whole) <= room ? whole : fitMessage(clean(view.banner), room);
	return (
		<Text wrap="truncate" inverse bold color={theme.error}>
			{BADGE}
			<Text>{` ${text}`}</Text>
		</Text>
	);
}
