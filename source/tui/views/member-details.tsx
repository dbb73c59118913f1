/** Member details: the pod, PVC and Lease fields that matter, the source hash, recent Events, and why it is or is not free. */

import { Box, Text } from 'ink';
import { useMemo } from 'react';
import {
	ASSIGNED_TO_ANNOTATION,
	leaseName,
	notFreeReason,
	pvcName,
	SOURCE_LABEL,
	toMillis,
} from '../../pool/index.js';
import { formatAge } from '../../text/age.js';
import { ageSince, clockTime } from '../age.js';
import type { MemberRow } from '../member-row.js';
import type { MemberObjectSet } from '../object-index.js';
import { type ConsoleState, selectedRow } from '../store.js';
import { clean } from '../text-fit.js';
import { useTheme } from '../theme.js';
import { useConsole, useConsoleStore } from '../use-console.js';

/** One line of the details screen. */
export interface DetailLine {
	label: string;
	text: string;
	tone?: 'ok' | 'warn' | 'error' | 'muted';
}

function when(t: unknown, now: number): string {
	const ms = toMillis(t as string | undefined);
	return ms === null ? '-' : `${clockTime(ms)} (${ageSince(ms, now)} ago)`;
}

/** The lines of the details screen for a member (events excluded). */
export function detailLines(
	row: MemberRow,
	objects: MemberObjectSet,
	poolHash: string | null,
	now: number,
): DetailLine[] {
	const lines: DetailLine[] = [];
	const reason = notFreeReason(row);
	lines.push({
		label: 'Member',
		text: `${row.name} · index ${row.index} · ${row.state}${row.message ? `: ${row.message}` : ''}`,
		tone: row.state === 'Failed' ? 'error' : undefined,
	});
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
		const spec = lease.spec ?? {};
		const expiry =
			row.leaseExpiresAt === null
				? 'no readable expiry (counts as expired)'
				: row.leaseExpiresAt <= now
					? `EXPIRED ${formatAge(now - row.leaseExpiresAt)} ago`
					: `expires in ${formatAge(row.leaseExpiresAt - now)}`;
		lines.push({
			label: 'Lease',
			text: `${lease.metadata.name ?? leaseName(row.name)} · holder ${spec.holderIdentity || '-'} · acquired ${when(spec.acquireTime, now)} · renewed ${when(spec.renewTime, now)} · ${spec.leaseDurationSeconds ?? '?'}s · ${expiry}`,
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

/** Props of the details screen. */
export interface MemberDetailsProps {
	height: number;
}

/** The details screen. */
export function MemberDetails({ height }: MemberDetailsProps) {
	const theme = useTheme();
	const store = useConsoleStore();
	const row = useConsole(selectedRow);
	const revision = useConsole((s) => s.revision);
	const now = useConsole((s) => s.now);
	const poolHash = useConsole((s) => (s.pool ? (s.pools[s.pool]?.sourceHash ?? null) : null));
	const details = useConsole((s: ConsoleState) => s.details);
	// biome-ignore lint/correctness/useExhaustiveDependencies: revision marks a change of the objects
	const objects = useMemo(
		() => (row ? store.getState().memberObjects(row.name) : null),
		[row, revision, store],
	);
	if (!row || !objects)
		return (
			<Box height={height}>
				<Text color={theme.muted}>the member is gone (Esc returns)</Text>
			</Box>
		);
	const lines = detailLines(row, objects, poolHash, now);
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
	const eventsRoom = Math.max(0, height - lines.length - 1);
	const ev = details && details.member === row.name ? details : null;
	const eventLines: string[] = !ev
		? []
		: ev.loading
			? ['loading…']
			: ev.error
				? [`could not list events: ${ev.error}`]
				: ev.events.length === 0
					? ['none recorded']
					: ev.events
							.slice(-Math.max(0, eventsRoom - 1))
							.map(
								(e) =>
									`${e.time === null ? '--:--:--' : clockTime(e.time)} ${e.type} ${e.reason} ${e.object}${e.count > 1 ? ` (x${e.count})` : ''}: ${e.message}`,
							);
	return (
		<Box flexDirection="column" height={height}>
			{lines.slice(0, height).map((l) => (
				<Text key={l.label} wrap="truncate" color={colour(l.tone)}>
					<Text bold>{`${l.label.padEnd(10)}`}</Text>
					{clean(l.text)}
				</Text>
			))}
			{eventsRoom > 0 ? (
				<Text bold wrap="truncate">
					Events (recent, listed when opened · Esc returns)
				</Text>
			) : null}
			{eventLines.slice(0, Math.max(0, eventsRoom - 1)).map((t, i) => (
				<Text key={String(i)} wrap="truncate" color={ev?.error ? theme.error : undefined}>
					{'  '}
					{clean(t)}
				</Text>
			))}
		</Box>
	);
}
