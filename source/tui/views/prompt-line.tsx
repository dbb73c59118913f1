/**
 * The open prompt: the filter being typed, the claim identity, the release confirm, the
 * maintenance reason, or the one confirmation of a bulk action (its list of members scrolls).
 */

import { Box, Text } from 'ink';
import { withCursor } from '../line-edit.js';
import { splitPoolKey } from '../pool-key.js';
import type { BulkMember, Prompt } from '../store.js';
import { truncate } from '../text-fit.js';
import { wrapText } from '../text-wrap.js';
import { useTheme } from '../theme.js';

/** One member of a bulk confirmation's list. */
function bulkLine(m: BulkMember, nameWidth: number, width: number): string {
	const who = m.holder ? `held by ${m.holder}` : 'no holder';
	return truncate(
		`  ${m.name.padEnd(nameWidth)}  ${who}${m.skip ? ` · skipped: ${m.skip}` : ''}`,
		width,
	);
}

/**
 * ` of team-b/desk` after a member's name when the pool key names its namespace (-A, where
 * two namespaces may each hold a pool of that name), else nothing.
 */
export function ofPool(pool: string): string {
	return splitPoolKey(pool).namespace === null ? '' : ` of ${pool}`;
}

/** The most lines a prompt may take on a terminal of `rows` rows. */
export function promptRoom(rows: number): number {
	return Math.max(5, Math.floor((rows - 1) * 0.55));
}

/**
 * The lines a prompt takes at a width (the release confirm wraps so it is read in full; a
 * bulk confirmation shows as much of its list as maxLines leaves room for, with a position).
 */
export function promptLines(
	prompt: Prompt,
	width: number,
	pool: string,
	maxLines = Number.POSITIVE_INFINITY,
): string[] {
	switch (prompt.kind) {
		case 'filter':
			return [
				`/ ${withCursor(prompt)} (regex on name, state, holder, node, message · ! inverts · Enter keeps · Esc clears)`,
			];
		case 'find':
			return [
				`/ ${withCursor(prompt)} (find pools, members, holders · ↑↓ pick · Enter opens · Esc clears)`,
			];
		case 'claim':
			return [
				...wrapText(
					`Claim a free member of ${pool} for: ${withCursor(prompt)} (Enter claims · Esc cancels)`,
					width,
				),
				...(prompt.error ? wrapText(prompt.error, width) : []),
			];
		case 'release': {
			const holder = prompt.holder ? `held by ${truncate(prompt.holder, 80)}` : 'with no holder';
			const stranded = prompt.stranded ? `; stranded: ${truncate(prompt.stranded, 160)}` : '';
			return wrapText(
				`Release ${prompt.member}${ofPool(pool)} (${holder}${stranded}) with --force? Its pod and data PVC are deleted: ALL DATA OF ${prompt.member} IS DESTROYED, and a clean member is made again. y releases · n or Esc cancels`,
				width,
			);
		}
		case 'maintenance':
			return wrapText(
				`Maintenance on ${prompt.member}${ofPool(pool)}, reason: ${withCursor(prompt)} (Enter sets it · Esc cancels)`,
				width,
			);
		case 'bulk': {
			const acting = prompt.members.filter((m) => !m.skip).length;
			const n = `${acting} marked member${acting === 1 ? '' : 's'}`;
			const head =
				prompt.action === 'release'
					? `Force-release ${n} of ${pool}? Their pods and data PVCs are deleted: ALL THEIR DATA IS DESTROYED, and clean members are made again.`
					: prompt.action === 'maintenance-on'
						? `Maintenance on ${n}, reason: ${withCursor(prompt)}`
						: `Maintenance off for ${n}?`;
			const tail =
				prompt.action === 'maintenance-on'
					? 'Enter sets it · Esc cancels'
					: `y ${prompt.action === 'release' ? 'releases' : 'clears'} all ${acting} · n or Esc cancels`;
			const headLines = wrapText(head, width);
			const total = prompt.members.length;
			const room = Math.max(1, maxLines - headLines.length - 1);
			// the whole list when it fits, else a window and a position line
			const listRoom = total <= room ? total : Math.max(1, room - 1);
			const start = Math.max(0, Math.min(prompt.scroll, total - listRoom));
			const nameWidth = prompt.members.reduce((w, m) => Math.max(w, m.name.length), 0);
			const list = prompt.members
				.slice(start, start + listRoom)
				.map((m) => bulkLine(m, nameWidth, width));
			const position =
				total > listRoom
					? [
							truncate(
								`  members ${start + 1}-${start + list.length} of ${total} · ↑ ↓ PgUp PgDn scroll`,
								width,
							),
						]
					: [];
			return [...headLines, ...list, ...position, truncate(tail, width)];
		}
	}
}

/** Props of the prompt. */
export interface PromptLineProps {
	prompt: Prompt;
	width: number;
	pool: string;
	/** The most lines it may take (a bulk list scrolls within them). */
	maxLines?: number;
}

/** The prompt (as many lines as promptLines says). */
export function PromptLine({ prompt, width, pool, maxLines }: PromptLineProps) {
	const theme = useTheme();
	const lines = promptLines(prompt, width, pool, maxLines);
	const colour =
		prompt.kind === 'release' || (prompt.kind === 'bulk' && prompt.action === 'release')
			? theme.warn
			: theme.accent;
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
