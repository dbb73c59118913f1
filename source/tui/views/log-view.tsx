/** The container log of a member, followed live: long lines wrap, the view scrolls, and at its end it follows. */

import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { linePosition, type ScrollInfo, textWindow } from '../render/table-window.js';
import { clean, truncate } from '../render/text-fit.js';
import { hardWrap } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import { useConsole } from './use-console.js';

/** Props of the log view. */
export interface LogViewProps {
	width: number;
	height: number;
	/** Set to how far the log can scroll. */
	scrollInfo: ScrollInfo;
}

/** The log view. */
export function LogView({ width, height, scrollInfo }: LogViewProps) {
	const theme = useTheme();
	const log = useConsole((s) => s.podLog);
	const scroll = useConsole((s) => s.scroll);
	const lines = log?.lines;
	const wrapped = useMemo(
		() => (lines ?? []).flatMap((l) => hardWrap(l, Math.max(1, width))),
		[lines, width],
	);
	if (!log) {
		scrollInfo.max = 0;
		return (
			<Box height={height}>
				<Text color={theme.muted}>no log open (Esc returns)</Text>
			</Box>
		);
	}
	const body = Math.max(0, height - 1);
	const start = textWindow(wrapped.length, body, scroll, scrollInfo);
	const shown = wrapped.slice(start, start + body);
	const state =
		log.phase === 'connecting'
			? 'connecting…'
			: log.phase === 'following'
				? scroll < 0
					? 'following'
					: 'paused (G follows)'
				: log.phase === 'waiting'
					? `ended${log.error ? ` (${log.error})` : ''}; waiting for its next container`
					: log.phase === 'ended'
						? 'ended'
						: `error: ${log.error ?? ''}`;
	const whose = log.note ? ` (${log.note})` : '';
	const title = `log ${log.member}${log.previous ? ' --previous' : ''}${whose} · ${state} · ${linePosition(start, shown.length, wrapped.length)}${log.dropped > 0 ? ` (${log.dropped} older dropped)` : ''} · p ${log.previous ? 'current' : 'previous'} · Esc back`;
	return (
		<Box flexDirection="column" height={height}>
			<Text wrap="truncate" bold color={log.phase === 'error' ? theme.error : theme.accent}>
				{truncate(clean(title), width)}
			</Text>
			{shown.length === 0 && log.phase !== 'connecting' ? (
				<Text color={theme.muted} wrap="truncate">
					{log.phase === 'error' ? '' : 'no log lines yet'}
				</Text>
			) : (
				shown.map((l, i) => (
					<Text key={String(start + i)} wrap="truncate">
						{l}
					</Text>
				))
			)}
		</Box>
	);
}
