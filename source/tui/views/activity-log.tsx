/** The activity log pane: every action and reconcile step, newest last; errors stand out. */

import { Box, Text } from 'ink';
import { clockTime } from '../../text/age.js';
import { clean } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import type { LogEntry } from '../store/store.js';
import { useConsole } from './use-console.js';

const MARK: Record<LogEntry['outcome'], string> = {
	start: '…',
	ok: '✓',
	error: '✗ ERROR',
	info: '·',
};

/** One log entry as a line of text. */
export function logLine(e: LogEntry): string {
	const who = clean(e.actor);
	const what = [clean(e.action), e.member ? clean(e.member) : clean(e.pool)]
		.filter(Boolean)
		.join(' ');
	return `${clockTime(e.time)} ${who} ${what} ${MARK[e.outcome]} ${clean(e.message)}`;
}

/** Props of the log pane. */
export interface ActivityLogProps {
	height: number;
}

/** The activity log pane (a title line, then the newest entries that fit). */
export function ActivityLog({ height }: ActivityLogProps) {
	const theme = useTheme();
	const log = useConsole((s) => s.log);
	const lines = Math.max(0, height - 1);
	const shown = lines > 0 ? log.slice(-lines) : [];
	const errors = log.reduce((n, e) => n + (e.outcome === 'error' ? 1 : 0), 0);
	return (
		<Box flexDirection="column" height={height}>
			<Text wrap="truncate" bold color={theme.accent}>
				── activity ({log.length}
				{errors > 0 ? `, ${errors} error${errors > 1 ? 's' : ''}` : ''}) · l hides ──
			</Text>
			{shown.length === 0 ? (
				<Text color={theme.muted}>nothing yet</Text>
			) : (
				shown.map((e) => (
					<Text
						key={e.id}
						wrap="truncate"
						color={
							e.outcome === 'error' ? theme.error : e.outcome === 'ok' ? undefined : theme.muted
						}
						bold={e.outcome === 'error'}
					>
						{logLine(e)}
					</Text>
				))
			)}
		</Box>
	);
}
