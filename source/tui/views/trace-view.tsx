/**
 * The trace screen (t): the selected pool's last plan of this console's reconciles, live,
 * then other reconcilers' passes as far as their audit Events tell.
 */

import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { poolName as nameOfPool } from '../model/pool-index.js';
import { otherReconcilerPasses } from '../model/trace-model.js';
import { linePosition, type ScrollInfo, textWindow } from '../render/table-window.js';
import { truncate } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { type Theme, useTheme } from '../render/theme.js';
import { type TraceLine, traceLines } from './trace-lines.js';
import { useConsole } from './use-console.js';

/** Props of the trace screen. */
export interface TraceViewProps {
	width: number;
	height: number;
	/** Set to how far the text can scroll. */
	scrollInfo: ScrollInfo;
}

function colour(theme: Theme, tone: TraceLine['tone']) {
	switch (tone) {
		case 'ok':
			return theme.ok;
		case 'warn':
			return theme.warn;
		case 'error':
			return theme.error;
		case 'running':
			return theme.accent;
		case 'muted':
			return theme.muted;
		default:
			return undefined;
	}
}

/** A line wrapped to width, its continuations indented and wrapped within what is left: never cut. */
function indentedWrap(text: string, width: number): string[] {
	const w = Math.max(10, width);
	const [first = '', ...rest] = wrapText(text, w, { whole: true });
	if (rest.length === 0) return [first];
	return [first, ...wrapText(rest.join(' '), w - 4, { whole: true }).map((t) => `    ${t}`)];
}

/** The trace screen. */
export function TraceView({ width, height, scrollInfo }: TraceViewProps) {
	const theme = useTheme();
	const pool = useConsole((s) => s.traceView.pool);
	const trace = useConsole((s) => s.traces[s.traceView.pool]);
	const loop = useConsole((s) => s.loop);
	const now = useConsole((s) => s.now);
	const scroll = useConsole((s) => s.scroll);
	const entries = useConsole((s) => s.audit.entries);
	const audit = useConsole((s) => s.audit.status);
	const ownPasses = trace?.ownPasses;
	// rebuilt when the Events or this console's own passes change, not on every tick
	const others = useMemo(
		() => otherReconcilerPasses(entries, pool, ownPasses),
		[entries, pool, ownPasses],
	);
	const input = { pool: nameOfPool(pool), trace, loop, now, others, audit };
	const lines = traceLines(input).flatMap((l) =>
		indentedWrap(l.text, width).map((text) => ({ text, tone: l.tone })),
	);
	const body = Math.max(0, height - 1);
	const start = textWindow(lines.length, body, scroll, scrollInfo);
	const shown = Math.min(body, lines.length - start);
	const title = `Trace · pool ${nameOfPool(pool)} · ${linePosition(start, shown, lines.length)} · Esc returns`;
	return (
		<Box flexDirection="column" height={height}>
			<Text bold wrap="truncate">
				{truncate(title, width)}
			</Text>
			{lines.slice(start, start + body).map((l, i) => (
				<Text
					key={String(start + i)}
					wrap="truncate"
					bold={l.tone === 'heading'}
					color={colour(theme, l.tone)}
				>
					{truncate(l.text, width)}
				</Text>
			))}
		</Box>
	);
}
