/** Member details: the pod, PVC and Lease fields that matter, the source hash, recent Events, and why it is or is not free. */

import { Box, Text } from 'ink';
import { useEffect, useMemo } from 'react';
import {
	ASSIGNED_TO_ANNOTATION,
	leaseName,
	notFreeReason,
	pvcName,
	readLease,
	SOURCE_LABEL,
	toMillis,
} from '../../pool/index.js';
import { ageSince, clockTime, formatAge } from '../../text/age.js';
import {
	type HintInputs,
	type HintPool,
	imageLine,
	memberHint,
	sessionHintPool,
} from '../model/member-hint.js';
import type { MemberRow } from '../model/member-row.js';
import type { MemberObjectSet } from '../model/object-index.js';
import { linePosition, type ScrollInfo, textWindow } from '../render/table-window.js';
import { clean, truncate } from '../render/text-fit.js';
import { wrapText } from '../render/text-wrap.js';
import { useTheme } from '../render/theme.js';
import { type ConsoleState, selectedPosition, selectedRow, visibleRows } from '../store/store.js';
import { useConsole, useConsoleStore } from './use-console.js';

/** One line of the details screen. */
export interface DetailLine {
	label: string;
	text: string;
	tone?: 'ok' | 'warn' | 'error' | 'muted';
}

function when(t: unknown, now: number): string {
	const ms = typeof t === 'number' ? t : toMillis(t as string | undefined);
	return ms === null ? '-' : `${clockTime(ms)} (${ageSince(ms, now)} ago)`;
}

/** The label column's width on the details screen. */
const LABEL_WIDTH = 10;

/** The most rows one hint line wraps to (a long log line is cut). */
const HINT_ROWS = 3;

/** What the "what to do now" lines need: the member's pool and the inputs read for it. */
export interface DetailHint {
	pool: HintPool;
	inputs: HintInputs;
	/** The width the text of a line may take (hint lines wrap to it; 0: no wrapping). */
	width: number;
}

/** The hint lines, wrapped to the width (continuations carry no label). */
function hintLines(
	row: MemberRow,
	objects: MemberObjectSet,
	hint: DetailHint,
	now: number,
): DetailLine[] {
	return memberHint(row, objects.pod ?? null, hint.pool, hint.inputs, now).flatMap((h) => {
		const all = hint.width > 0 ? wrapText(h.text, hint.width) : [h.text];
		// a hint never pushes the member's fields off the screen: at most HINT_ROWS rows each
		const parts =
			all.length > HINT_ROWS ? [...all.slice(0, HINT_ROWS - 1), `${all[HINT_ROWS - 1]}…`] : all;
		return parts.map((text, i) => ({ label: i === 0 ? h.label : '', text, tone: h.tone }));
	});
}

/** The lines of the details screen for a member (events excluded), with its hint when given. */
export function detailLines(
	row: MemberRow,
	objects: MemberObjectSet,
	poolHash: string | null,
	now: number,
	hint?: DetailHint,
): DetailLine[] {
	const lines: DetailLine[] = [];
	const reason = notFreeReason(row);
	lines.push({
		label: 'Member',
		text: `${row.name} · index ${row.index} · ${row.state}${row.message ? `: ${row.message}` : ''}`,
		tone: row.state === 'Failed' ? 'error' : undefined,
	});
	if (hint) lines.push(...hintLines(row, objects, hint, now));
	lines.push(
		reason === null
			? {
					label: 'Free',
					text: 'yes: no Lease, within size, current source, not in maintenance',
					tone: 'ok',
				}
			: { label: 'Free', text: `no: ${reason}`, tone: 'warn' },
	);
	const pod = objects.pod;
	if (pod) {
		const st = pod.status ?? {};
		const cs = st.containerStatuses?.[0];
		const container = cs?.state?.running
			? `running since ${when(cs.state.running.startedAt, now)}`
			: cs?.state?.waiting
				? `waiting: ${cs.state.waiting.reason ?? ''} ${cs.state.waiting.message ?? ''}`
				: cs?.state?.terminated
					? `terminated: ${cs.state.terminated.reason ?? ''} exit ${cs.state.terminated.exitCode ?? '?'}`
					: '-';
		const ip = (st as { podIP?: string }).podIP;
		lines.push({
			label: 'Pod',
			text: `${pod.metadata.name ?? ''} · phase ${st.phase ?? '-'} · node ${pod.spec?.nodeName || '-'}${ip ? ` · ip ${ip}` : ''} · restarts ${cs?.restartCount ?? 0} · created ${when(pod.metadata.creationTimestamp, now)}${pod.metadata.deletionTimestamp ? ` · deleting since ${when(pod.metadata.deletionTimestamp, now)}` : ''}`,
		});
		lines.push({ label: 'Container', text: container });
		const image = imageLine(pod);
		if (image)
			for (const [i, text] of (hint?.width
				? wrapText(image.text, hint.width)
				: [image.text]
			).entries())
				lines.push({ label: i === 0 ? image.label : '', text });
	} else lines.push({ label: 'Pod', text: 'none', tone: 'muted' });
	const pvc = objects.pvc;
	if (pvc) {
		const ann = pvc.metadata.annotations ?? {};
		lines.push({
			label: 'PVC',
			text: `${pvc.metadata.name ?? pvcName(row.name)} · phase ${pvc.status?.phase ?? '-'} · assigned-to ${ann[ASSIGNED_TO_ANNOTATION] || '-'} · maintenance ${row.maintenance ? row.maintenanceReason || 'yes' : 'no'} · created ${when(pvc.metadata.creationTimestamp, now)}${pvc.metadata.deletionTimestamp ? ` · deleting since ${when(pvc.metadata.deletionTimestamp, now)}` : ''}`,
		});
	} else lines.push({ label: 'PVC', text: 'none', tone: 'muted' });
	const lease = objects.lease;
	if (lease) {
		const spec = readLease(lease);
		const expiry =
			row.leaseExpiresAt === null
				? 'no readable expiry (counts as expired)'
				: row.leaseExpiresAt <= now
					? `EXPIRED ${formatAge(now - row.leaseExpiresAt)} ago`
					: `expires in ${formatAge(row.leaseExpiresAt - now)}`;
		lines.push({
			label: 'Lease',
			text: `${lease.metadata.name ?? leaseName(row.name)} · holder ${spec.holder || '-'} · acquired ${when(spec.acquireTime, now)} · renewed ${when(spec.renewTime, now)} · ${spec.durationSeconds ?? '?'}s · ${expiry}`,
			tone: row.claimExpired ? 'error' : undefined,
		});
	} else lines.push({ label: 'Lease', text: 'none (no claim)', tone: 'muted' });
	const memberHash =
		pod?.metadata.labels?.[SOURCE_LABEL] ?? pvc?.metadata.labels?.[SOURCE_LABEL] ?? '';
	lines.push({
		label: 'Source',
		text: `member ${memberHash || '-'} · pool ${poolHash ?? '-'} · ${row.drifted ? `DRIFTED: ${row.drift.join('; ')}` : 'current'}`,
		tone: row.drifted ? 'warn' : undefined,
	});
	const flags = [
		row.aboveSize ? 'above the pool size' : '',
		row.reconciling ? 'the reconciler holds its Lease' : '',
	].filter(Boolean);
	if (flags.length > 0) lines.push({ label: 'Flags', text: flags.join(' · '), tone: 'warn' });
	return lines;
}

const NO_INPUTS: HintInputs = {};

/** One line on screen: a detail's first line carries its label. */
interface ScreenLine {
	label: string;
	text: string;
	tone?: DetailLine['tone'];
	bold?: boolean;
	/** Outside the label column (the Events). */
	full?: boolean;
}

/** The details and events as screen lines of width columns: long lines wrap, nothing is cut. */
export function detailScreenLines(
	lines: readonly DetailLine[],
	events: readonly string[],
	eventsError: boolean,
	width: number,
): ScreenLine[] {
	const out: ScreenLine[] = [];
	const textWidth = Math.max(10, width - LABEL_WIDTH);
	for (const l of lines)
		for (const [i, t] of wrapText(l.text, textWidth, { whole: true }).entries())
			out.push({ label: i === 0 ? l.label : '', text: t, tone: l.tone });
	out.push({ label: '', text: '', full: true });
	out.push({ label: '', text: 'Events (recent, listed when opened)', bold: true, full: true });
	for (const e of events)
		for (const t of wrapText(e, Math.max(10, width - 2), { whole: true }))
			out.push({ label: '', text: `  ${t}`, tone: eventsError ? 'error' : undefined, full: true });
	return out;
}

/** Props of the details screen. */
export interface MemberDetailsProps {
	width: number;
	height: number;
	/** Set to how far the text can scroll. */
	scrollInfo: ScrollInfo;
}

/** The details screen: a position line, then the details and Events, scrolled. */
export function MemberDetails({ width, height, scrollInfo }: MemberDetailsProps) {
	const theme = useTheme();
	const store = useConsoleStore();
	const row = useConsole(selectedRow);
	const showMembers = useConsole((s) => s.showMembers);
	// the watch hands over changes of this member at once
	const shownMember = row?.name ?? null;
	useEffect(() => {
		showMembers(shownMember === null ? [] : [shownMember]);
		return () => showMembers([]);
	}, [showMembers, shownMember]);
	const revision = useConsole((s) => s.revision);
	const now = useConsole((s) => s.now);
	const poolHash = useConsole((s) => (s.pool ? (s.pools[s.pool]?.sourceHash ?? null) : null));
	const details = useConsole((s: ConsoleState) => s.details);
	const scroll = useConsole((s) => s.scroll);
	const where = {
		at: useConsole((s) => selectedPosition(s, visibleRows(s)) + 1),
		of: useConsole((s) => visibleRows(s).length),
	};
	const pool = useConsole((s) => (s.pool ? (s.pools[s.pool] ?? null) : null));
	const poolKeyNow = useConsole((s) => s.pool);
	const session = useConsole((s) => s.session);
	const inputs = useConsole((s) =>
		row && s.hintInputs?.member === row.name ? s.hintInputs.inputs : NO_INPUTS,
	);
	// biome-ignore lint/correctness/useExhaustiveDependencies: revision marks a change of the objects
	const objects = useMemo(
		() => (row ? store.getState().memberObjects(row.name) : null),
		[row, revision, store],
	);
	if (!row || !objects) {
		scrollInfo.max = 0;
		return (
			<Box height={height}>
				<Text color={theme.muted}>the member is gone (Esc returns)</Text>
			</Box>
		);
	}
	const hint: DetailHint | undefined = pool
		? {
				pool: sessionHintPool(session, poolKeyNow ?? pool.pool, pool),
				inputs,
				width: Math.max(20, width - LABEL_WIDTH),
			}
		: undefined;
	const lines = detailLines(row, objects, poolHash, now, hint);
	const colour = (tone: DetailLine['tone']) =>
		tone === 'ok'
			? theme.ok
			: tone === 'warn'
				? theme.warn
				: tone === 'error'
					? theme.error
					: tone === 'muted'
						? theme.muted
						: undefined;
	const ev = details && details.member === row.name ? details : null;
	const eventLines: string[] = !ev
		? []
		: ev.loading
			? ['loading…']
			: ev.error
				? [`could not list events: ${ev.error}`]
				: ev.events.length === 0
					? ['none recorded']
					: ev.events.map(
							(e) =>
								`${e.time === null ? '--:--:--' : clockTime(e.time)} ${e.type} ${e.reason} ${e.object}${e.count > 1 ? ` (x${e.count})` : ''}: ${e.message}`,
						);
	const all = detailScreenLines(lines, eventLines, Boolean(ev?.error), width);
	const body = Math.max(0, height - 1);
	const start = textWindow(all.length, body, scroll, scrollInfo);
	const shown = all.slice(start, start + body);
	const position = `${row.name} · member ${where.at} of ${where.of} · ${linePosition(start, shown.length, all.length)} · ↑↓ PgUp PgDn scroll · [ ] prev/next · Esc back`;
	return (
		<Box flexDirection="column" height={height}>
			<Text wrap="truncate" color={theme.accent} bold>
				{truncate(position, width)}
			</Text>
			{shown.map((l, i) => (
				<Text key={String(start + i)} wrap="truncate" color={colour(l.tone)} bold={l.bold}>
					{l.full ? null : <Text bold>{l.label.padEnd(LABEL_WIDTH)}</Text>}
					{clean(l.text)}
				</Text>
			))}
		</Box>
	);
}
