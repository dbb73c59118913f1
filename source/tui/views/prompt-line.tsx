/** The open prompt: the filter being typed, the claim identity, or the release confirm. */

import { Box, Text } from 'ink';
import type { Prompt } from '../store.js';
import { truncate } from '../text-fit.js';
import { wrapText } from '../text-wrap.js';
import { useTheme } from '../theme.js';

/** The lines a prompt takes at a width (the release confirm wraps so it is read in full). */
export function promptLines(prompt: Prompt, width: number, pool: string): string[] {
	switch (prompt.kind) {
		case 'filter':
			return [
				`/ ${prompt.value}▏ (regex on name, state, holder, node, message · ! inverts · Enter keeps · Esc clears)`,
			];
		case 'find':
			return [
				`/ ${prompt.value}▏ (find pools, members, holders · ↑↓ pick · Enter opens · Esc clears)`,
			];
		case 'claim':
			return [
				...wrapText(
					`Claim a free member of ${pool} for: ${prompt.value}▏ (Enter claims · Esc cancels)`,
					width,
				),
				...(prompt.error ? wrapText(prompt.error, width) : []),
			];
		case 'release': {
			const holder = prompt.holder ? `held by ${truncate(prompt.holder, 80)}` : 'with no holder';
			const stranded = prompt.stranded ? `; stranded: ${truncate(prompt.stranded, 160)}` : '';
			return wrapText(
				`Release ${prompt.member} (${holder}${stranded}) with --force? Its pod and data PVC are deleted: ALL DATA OF ${prompt.member} IS DESTROYED, and a clean member is made again. y releases · n or Esc cancels`,
				width,
			);
		}
	}
}

/** Props of the prompt. */
export interface PromptLineProps {
	prompt: Prompt;
	width: number;
	pool: string;
}

/** The prompt (as many lines as promptLines says). */
export function PromptLine({ prompt, width, pool }: PromptLineProps) {
	const theme = useTheme();
	const lines = promptLines(prompt, width, pool);
	const colour = prompt.kind === 'release' ? theme.warn : theme.accent;
	const errorFrom =
		prompt.kind === 'claim' && prompt.error
			? lines.length - wrapText(prompt.error, width).length
			: lines.length;
	return (
		<Box flexDirection="column">
			{lines.map((l, i) => (
				<Text key={String(i)} wrap="truncate" bold color={i >= errorFrom ? theme.error : colour}>
					{l}
				</Text>
			))}
		</Box>
	);
}
