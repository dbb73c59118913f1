/**
 * The text screen: read-only text a command shows (a title and lines). Long lines are broken,
 * never cut, so every character of a line is there to copy; ↑↓ PgUp PgDn g G scroll it and
 * Esc returns. Every line is sanitised on the way to the terminal.
 */

import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { linePosition, type ScrollInfo, textWindow } from '../render/table-window.js';
import { clean, truncate } from '../render/text-fit.js';
import { hardWrap } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import { useConsole } from './use-console.js';

/** Props of the text view. */
export interface TextViewProps {
	width: number;
	height: number;
	/** Set to how far the text can scroll. */
	scrollInfo: ScrollInfo;
}

/** The text screen. */
export function TextView({ width, height, scrollInfo }: TextViewProps) {
	const theme = useTheme();
	const view = useConsole((s) => s.textView);
	const scroll = useConsole((s) => s.scroll);
	const lines = view?.lines;
	const wrapped = useMemo(
		() => (lines ?? []).flatMap((l) => hardWrap(l, Math.max(1, width))),
		[lines, width],
	);
	const body = Math.max(0, height - 1);
	const start = textWindow(wrapped.length, body, scroll, scrollInfo);
	const shown = wrapped.slice(start, start + body);
	const title = `${clean(view?.title ?? 'no text')} · ${linePosition(start, shown.length, wrapped.length)}${wrapped.length > body ? ' ↑↓ scroll' : ''} · Esc returns`;
	return (
		<Box flexDirection="column" height={height}>
			<Text wrap="truncate" bold color={theme.accent}>
				{truncate(title, width)}
			</Text>
			{shown.map((l, i) => (
				<Text key={String(start + i)} wrap="truncate">
					{l}
				</Text>
			))}
		</Box>
	);
}
