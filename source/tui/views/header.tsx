/** The header: where the console looks (pool, namespace, context), the pool's spec and counts, and the connection. */

import { Box, Text } from 'ink';
import { recordedStorm } from '../../pool/index.js';
import { refusedIn } from '../model/audit-filter.js';
import { columnTitle } from '../model/member-columns.js';
import { poolColumnTitle, UNKNOWN } from '../model/pool-columns.js';
import type { PoolDerivation } from '../model/pool-derivation.js';
import { poolName as nameOfPool, poolNamespace } from '../model/pool-index.js';
import { rolloutLead } from '../model/rollout-lead.js';
import { sortLabel } from '../model/sorting.js';
import { headerConnection } from '../model/staleness.js';
import { clean, displayWidth, truncate } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import { listedKinds, type Screen } from '../store/store.js';
import { PoolPicture } from './pool-picture.js';
import { useConsole, useTerminalSize } from './use-console.js';

const READ_ONLY = '  read-only';

/** How many lines the header takes on a screen. */
export function headerHeight(screen: Screen, note: string): number {
	// members and details: the spec, the counts and the picture (sparklines, exhaustion)
	const base =
		screen === 'pools' || screen === 'help' || screen === 'audit' || screen === 'trace' ? 1 : 4;
	return base + (note ? 1 : 0);
}

/** The pool's spec in one line (without the image when a rollout's lead names it). */
function specLine(
	p: PoolDerivation | null,
	pool: string,
	known: boolean,
	rolling: boolean,
): string {
	if (!p?.defined && !known) return `pool ${pool}: ${UNKNOWN} reading its definition`;
	if (!p?.defined) return `pool ${pool}: no definition ConfigMap in this namespace`;
	if (!p.spec) return `definition unreadable: ${p.specError ?? ''}`;
	const s = p.spec;
	const parts = [
		...(rolling ? [] : [`image ${s.image}`]),
		`size ${s.size}`,
		s.mode,
		`cpu ${s.cpu}`,
		`mem ${s.memory}`,
		`disk ${s.disk}`,
	];
	if (s.storageClass) parts.push(`class ${s.storageClass}`);
	if (s.privileged) parts.push('privileged');
	if (s.init) parts.push('init');
	return parts.join(' · ');
}

/** One figure of the counts line: its labels from the widest to the narrowest, its value. */
interface CountSegment {
	label: string;
	labels: readonly [string, string, string];
	value: string;
}

/** A segment as drawn: the label chosen for the width, and the value. */
interface FittedSegment {
	label: string;
	text: string;
	value: string;
}

/**
 * The counts line's figures: desired, observed, ready, claimed, claimable now (Ready and free)
 * and soon (Starting or Stopped and free), refused claims over the last hour, unschedulable,
 * drifted.
 */
function countSegments(
	base: { desired: string; observed: string; ready: string; claimed: string },
	now: string,
	soon: string,
	refused: string,
	unschedulable: string,
	drifted: string,
): CountSegment[] {
	return [
		{ label: 'desired', labels: ['desired', 'desired', 'des'], value: base.desired },
		{ label: 'observed', labels: ['observed', 'obs', 'obs'], value: base.observed },
		{ label: 'ready', labels: ['ready', 'ready', 'rdy'], value: base.ready },
		{ label: 'claimed', labels: ['claimed', 'claimed', 'clm'], value: base.claimed },
		{ label: 'now', labels: ['claimable now', 'free', 'free'], value: now },
		{ label: 'soon', labels: ['soon', 'soon', 'soon'], value: soon },
		{ label: 'refused', labels: ['refused/1h', 'refused', 'ref'], value: refused },
		{
			label: 'unschedulable',
			labels: ['unschedulable', 'unsched', 'unsch'],
			value: unschedulable,
		},
		{ label: 'drifted', labels: ['drifted', 'drift', 'drift'], value: drifted },
	];
}

/**
 * The segments with the widest labels that fit the width: the full ones, then short ones with
 * claimable now and soon as one `free N+M`, then the shortest (cut at the end if even those
 * do not fit).
 */
function fitSegments(segments: CountSegment[], width: number): FittedSegment[] {
	let fitted: FittedSegment[] = [];
	for (const tier of [0, 1, 2] as const) {
		fitted = segments.map((s) => ({ label: s.label, text: s.labels[tier], value: s.value }));
		if (tier > 0) {
			const soon = fitted.find((s) => s.label === 'soon')?.value ?? '';
			fitted = fitted
				.filter((s) => s.label !== 'soon')
				.map((s) => (s.label === 'now' ? { ...s, value: `${s.value}+${soon}` } : s));
		}
		if (countsText(fitted).length <= width) break;
	}
	return fitted;
}

/** The counts line as text. */
function countsText(segments: readonly FittedSegment[]): string {
	return segments.map((s) => `${s.text} ${s.value}`).join(' ');
}

/** The header. */
export function Header() {
	const theme = useTheme();
	const screen = useConsole((s) => (s.screen === 'help' ? s.helpReturn : s.screen));
	const helpOpen = useConsole((s) => s.screen === 'help');
	const note = useConsole((s) => s.session.note);
	const { columns } = useTerminalSize();
	return (
		<Box flexDirection="column">
			<TitleLine screen={screen} width={columns} />
			{screen !== 'pools' && screen !== 'audit' && screen !== 'trace' && !helpOpen ? (
				<>
					<SpecLine width={columns} />
					<CountsLine width={columns} />
					<PoolPicture width={columns} />
				</>
			) : null}
			{note ? (
				<Text wrap="truncate" color={theme.accent}>
					{clean(note)}
				</Text>
			) : null}
		</Box>
	);
}

/** Where the screen is (with its sort, when not by name), its namespace and context. */
function usePlace(screen: Screen): string {
	const session = useConsole((s) => s.session);
	const poolName = useConsole((s) => s.pool);
	const poolCount = useConsole((s) => s.poolNames.length);
	const memberSort = useConsole((s) => s.memberSort);
	const poolSort = useConsole((s) => s.poolSort);
	const shownSort = screen === 'pools' ? poolSort : memberSort;
	// the sort (when not the default, by name) comes before namespace and context, which give way first
	const sort =
		shownSort.column === 'name' && !shownSort.reverse
			? ''
			: screen === 'pools'
				? ` · ${sortLabel(poolColumnTitle(poolSort.column), poolSort)}`
				: screen === 'members'
					? ` · ${sortLabel(columnTitle(memberSort.column), memberSort)}`
					: '';
	const where =
		screen === 'pools'
			? `pools (${poolCount})${sort}`
			: screen === 'audit' || screen === 'trace'
				? screen
				: `pool ${clean(nameOfPool(poolName ?? ''))}${sort}`;
	const namespace =
		screen === 'pools' || screen === 'audit' || screen === 'trace' || !poolName
			? session.allNamespaces
				? 'all namespaces'
				: `ns ${clean(session.namespace)}`
			: `ns ${clean(poolNamespace(poolName, session.namespace))}`;
	return `${where} · ${namespace} · ctx ${clean(session.context || '-')}`;
}

/**
 * The first line: ctpool, the place, the connection, the loop and read-only; the place gives
 * way (cut with …) so the others are never cut.
 */
function TitleLine({ screen, width }: { screen: Screen; width: number }) {
	const theme = useTheme();
	const readOnly = useConsole((s) => s.session.readOnly);
	const poolName = useConsole((s) => s.pool);
	const connection = useConsole((s) => s.connection);
	const now = useConsole((s) => s.now);
	const authProblem = useConsole((s) => s.authProblem);
	const loop = useConsole((s) => s.loop);
	const place = usePlace(screen);
	const conn = headerConnection(connection, authProblem, now);
	const connColour =
		conn.tone === 'ok' ? theme.ok : conn.tone === 'warn' ? theme.warn : theme.error;
	const connLabel = clean(conn.label);
	const loopText =
		loop.on && loop.pool && (screen === 'pools' || loop.pool === poolName)
			? `${loop.running ? '  ⟳ loop: reconciling' : '  ⟳ loop on'}${screen === 'pools' ? ` ${clean(loop.pool)}` : ''}`
			: '';
	const placeWidth = Math.max(
		8,
		width - displayWidth(`ctpool    ${connLabel}${loopText}${readOnly ? READ_ONLY : ''}`),
	);
	return (
		<Text wrap="truncate">
			<Text bold color={theme.accent}>
				ctpool
			</Text>
			<Text>
				{'  '}
				{truncate(place, placeWidth)}
				{'  '}
			</Text>
			<Text color={connColour} bold={conn.tone !== 'ok'}>
				{connLabel}
			</Text>
			{loopText ? <Text color={theme.accent}>{loopText}</Text> : null}
			{readOnly ? <Text color={theme.warn}>{READ_ONLY}</Text> : null}
		</Text>
	);
}

/** The pool's spec line, led by a rollout under way (the new source's spec). */
function SpecLine({ width }: { width: number }) {
	const theme = useTheme();
	const poolName = useConsole((s) => s.pool);
	const pool = useConsole((s) => (s.pool ? (s.pools[s.pool] ?? null) : null));
	const knownSpec = useConsole((s) => listedKinds(s).spec);
	const knownCounts = useConsole((s) => listedKinds(s).counts);
	// a rollout leads the spec line: the figures below stay in place
	const rollout = knownCounts && pool ? rolloutLead(pool, width) : null;
	return (
		<Text wrap="truncate" color={pool?.specError ? theme.error : undefined}>
			{rollout ? (
				<Text bold color={theme.accent}>
					{clean(rollout)} ·{' '}
				</Text>
			) : null}
			{clean(specLine(pool, nameOfPool(poolName ?? ''), knownSpec, rollout !== null))}
		</Text>
	);
}

/** The counts line: the marks, EXHAUSTED, a stopped replacement storm, then the figures. */
function CountsLine({ width }: { width: number }) {
	const theme = useTheme();
	const pool = useConsole((s) => (s.pool ? (s.pools[s.pool] ?? null) : null));
	const marked = useConsole((s) => s.marks.size);
	const knownSpec = useConsole((s) => listedKinds(s).spec);
	const knownCounts = useConsole((s) => listedKinds(s).counts);
	const refused = useConsole((s) => (s.pool ? refusedIn(s, s.pool) : undefined));
	const c = pool?.counts;
	if (!knownCounts) {
		const desired = knownSpec && pool ? String(pool.counts.desired) : UNKNOWN;
		const unknown = { desired, observed: UNKNOWN, ready: UNKNOWN, claimed: UNKNOWN };
		const segments = countSegments(unknown, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
		return (
			<Text wrap="truncate">
				<Text color={theme.muted}>{countsText(fitSegments(segments, width))}</Text>
			</Text>
		);
	}
	if (!pool || !c)
		return (
			<Text wrap="truncate">
				<Text color={theme.muted}>no members seen yet</Text>
			</Text>
		);
	const stormed = recordedStorm(pool.recorded?.errors, pool.pool);
	const segments = countSegments(
		{
			desired: knownSpec ? String(c.desired) : UNKNOWN,
			observed: String(c.observed),
			ready: String(c.ready),
			claimed: String(c.claimed),
		},
		String(c.claimableNow),
		String(c.claimableSoon),
		refused === undefined ? UNKNOWN : refused === null ? '?' : String(refused),
		String(c.unschedulable),
		String(c.drifted),
	);
	const left =
		width -
		(c.exhausted ? 'EXHAUSTED  '.length : 0) -
		(stormed ? 'REPLACING STOPPED  '.length : 0) -
		(marked > 0 ? `${marked} marked  `.length : 0);
	const out = c.free === 0 && c.observed > 0;
	return (
		<Text wrap="truncate">
			{marked > 0 ? (
				<Text bold color={theme.accent}>
					{marked} marked{'  '}
				</Text>
			) : null}
			{c.exhausted ? (
				<Text bold color={theme.error}>
					EXHAUSTED{'  '}
				</Text>
			) : null}
			{stormed ? (
				<Text bold color={theme.error}>
					REPLACING STOPPED{'  '}
				</Text>
			) : null}
			{fitSegments(segments, left).map((seg, i) => {
				const warnRefused = seg.label === 'refused' && Boolean(refused);
				return (
					<Text key={seg.label}>
						{i > 0 ? ' ' : ''}
						{seg.text}{' '}
						<Text
							bold={seg.label === 'now' || warnRefused}
							color={
								seg.label === 'now'
									? out
										? theme.error
										: theme.ok
									: warnRefused
										? theme.warn
										: undefined
							}
						>
							{seg.value}
						</Text>
					</Text>
				);
			})}
		</Text>
	);
}
