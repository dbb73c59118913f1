/**
 * The status line: a spinner with elapsed time while an action runs (and, after a quit, that
 * ctpool quits once it has finished), else the last outcome.
 */

import { Text } from 'ink';
import { useEffect, useState } from 'react';
import { formatElapsed } from '../../text/age.js';
import { fitMessage } from '../render/message-fit.js';
import { clean } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import { useConsole, useTerminalSize } from './use-console.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A spinner that turns while mounted. */
function useSpinner(active: boolean): string {
	const [frame, setFrame] = useState(0);
	useEffect(() => {
		if (!active) return;
		const t = setInterval(() => setFrame((f) => (f + 1) % FRAMES.length), 120);
		return () => clearInterval(t);
	}, [active]);
	return FRAMES[frame] ?? '';
}

/** The status line. */
export function StatusLine() {
	const theme = useTheme();
	const busy = useConsole((s) => s.busy);
	const status = useConsole((s) => s.status);
	const now = useConsole((s) => s.now);
	const finishing = useConsole((s) => s.request?.kind === 'finish');
	const { columns } = useTerminalSize();
	const spinner = useSpinner(busy !== null);
	if (busy) {
		const elapsed = formatElapsed(Math.max(0, now - busy.startedAt));
		return (
			<Text wrap="truncate" color={theme.accent}>
				{spinner} {finishing ? 'finishing ' : ''}
				{clean(busy.label)}
				{finishing ? ' before quitting (q again abandons it)' : ''}
				{busy.detail ? `: ${clean(busy.detail)}` : ''} · {elapsed}
			</Text>
		);
	}
	if (!status) return <Text wrap="truncate"> </Text>;
	const mark = status.level === 'error' ? '✗ ' : status.level === 'ok' ? '✓ ' : '';
	const colour =
		status.level === 'error' ? theme.error : status.level === 'ok' ? theme.ok : undefined;
	return (
		<Text wrap="truncate" color={colour} bold={status.level === 'error'}>
			{mark}
			{status.level === 'error'
				? fitMessage(clean(status.text), Math.max(10, columns - mark.length))
				: clean(status.text)}
		</Text>
	);
}
