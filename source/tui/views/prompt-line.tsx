/**
 * The open prompt: the filter being typed, the claim identity, the release confirm, the
 * maintenance reason, or the one confirmation of a bulk action (its list of members scrolls).
 */

import { Box, Text } from 'ink';
import { claimPlace } from '../model/expired-claims.js';
import { ofPool } from '../model/pool-index.js';
import { withCursor } from '../prompts/line-edit.js';
import { truncate } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import type { BulkMember, Prompt } from '../store/store.js';

/** One member of a bulk confirmation's list. */
function bulkLine(m: BulkMember, nameWidth: number, width: number): string {
	const who = m.holder ? `held by ${m.holder}` : 'no holder';
	return truncate(
		`  ${m.name.padEnd(nameWidth)}  ${who}${m.skip ? ` · skipped: ${m.skip}` : ''}`,
		width,
	);
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
				`/ ${withCursor(prompt)} (find pools, members, holders · ↑↓ pick · Enter opens · Tab keeps it for * · Esc clears)`,
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
			// across namespaces (-A) two pools may share a name: the confirmation names its namespace
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
			const nameWidth = prompt.members.reduce((w, m) => Math.max(w, m.name.length), 0);
			return listPrompt(
				head,
				prompt.members.map((m) => bulkLine(m, nameWidth, width)),
				tail,
				{ scroll: prompt.scroll, width, maxLines },
			);
		}
		case 'expired': {
			const n = prompt.claims.length;
			const pools = new Set(prompt.claims.map(claimPlace)).size;
			const head = `Force-release ${n} expired claim${n === 1 ? '' : 's'} in ${pools} pool${pools === 1 ? '' : 's'}? Their pods and data PVCs are deleted: ALL THEIR DATA IS DESTROYED, and clean members are made again. A claim renewed meanwhile is left alone.`;
			const placeWidth = prompt.claims.reduce((w, c) => Math.max(w, claimPlace(c).length), 0);
			const nameWidth = prompt.claims.reduce((w, c) => Math.max(w, c.member.length), 0);
			const list = prompt.claims.map((c) =>
				truncate(
					`  ${claimPlace(c).padEnd(placeWidth)}  ${c.member.padEnd(nameWidth)}  held by ${c.holder}`,
					width,
				),
			);
			return listPrompt(head, list, `y releases all ${n} · n or Esc cancels`, {
				scroll: prompt.scroll,
				width,
				maxLines,
			});
		}
	}
}

/**
 * A confirmation over a list: its head wrapped, as much of the list as maxLines leaves room
 * for (a window and a position line when it does not all fit), and its tail.
 */
function listPrompt(
	head: string,
	list: readonly string[],
	tail: string,
	o: { scroll: number; width: number; maxLines: number },
): string[] {
	const headLines = wrapText(head, o.width);
	const total = list.length;
	const room = Math.max(1, o.maxLines - headLines.length - 1);
	// the whole list when it fits, else a window and a position line
	const listRoom = total <= room ? total : Math.max(1, room - 1);
	const start = Math.max(0, Math.min(o.scroll, total - listRoom));
	const shown = list.slice(start, start + listRoom);
	const position =
		total > listRoom
			? [
					truncate(
						`  members ${start + 1}-${start + shown.length} of ${total} · ↑ ↓ PgUp PgDn scroll`,
						o.width,
					),
				]
			: [];
	return [...headLines, ...shown, ...position, truncate(tail, o.width)];
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
		prompt.kind === 'release' ||
		prompt.kind === 'expired' ||
		(prompt.kind === 'bulk' && prompt.action === 'release')
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
