/** The header: where the console looks (pool, namespace, context), the pool's spec and counts, and the connection. */

import { Box, Text } from 'ink';
import { columnTitle } from '../member-columns.js';
import { poolColumnTitle, UNKNOWN } from '../pool-columns.js';
import type { PoolDerivation } from '../pool-derivation.js';
import { sortLabel } from '../sorting.js';
import { headerConnection } from '../staleness.js';
import { knownFigures, type Screen } from '../store.js';
import { clean, displayWidth, truncate } from '../text-fit.js';
import { useTheme } from '../theme.js';
import { useConsole, useTerminalSize } from '../use-console.js';

const READ_ONLY = '  read-only';

/** How many lines the header takes on a screen. */
export function headerHeight(screen: Screen, note: string): number {
	const base = screen === 'pools' || screen === 'help' ? 1 : 3;
	return base + (note ? 1 : 0);
}

function specLine(p: PoolDerivation | null, pool: string, known: boolean): string {
	if (!p?.defined && !known) return `pool ${pool}: ${UNKNOWN} reading its definition`;
	if (!p?.defined) return `pool ${pool}: no definition ConfigMap in this namespace`;
	if (!p.spec) return `definition unreadable: ${p.specError ?? ''}`;
	const s = p.spec;
	const parts = [
		`image ${s.image}`,
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

/** The header. */
export function Header() {
	const theme = useTheme();
	const screen = useConsole((s) => (s.screen === 'help' ? s.helpReturn : s.screen));
	const helpOpen = useConsole((s) => s.screen === 'help');
	const session = useConsole((s) => s.session);
	const poolName = useConsole((s) => s.pool);
	const pool = useConsole((s) => (s.pool ? (s.pools[s.pool] ?? null) : null));
	const poolCount = useConsole((s) => s.poolNames.length);
	const connection = useConsole((s) => s.connection);
	const now = useConsole((s) => s.now);
	const authProblem = useConsole((s) => s.authProblem);
	const conn = headerConnection(connection, authProblem, now);
	const loop = useConsole((s) => s.loop);
	const connColour =
		conn.tone === 'ok' ? theme.ok : conn.tone === 'warn' ? theme.warn : theme.error;
	const memberSort = useConsole((s) => s.memberSort);
	const poolSort = useConsole((s) => s.poolSort);
	const marked = useConsole((s) => s.marks.size);
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
		screen === 'pools' ? `pools (${poolCount})${sort}` : `pool ${clean(poolName ?? '')}${sort}`;
	const knownSpec = useConsole((s) => knownFigures(s).spec);
	const knownCounts = useConsole((s) => knownFigures(s).counts);
	const { columns } = useTerminalSize();
	// the place gives way (cut with …) so the connection, the loop and read-only are never cut
	const place = `${where} · ns ${clean(session.namespace)} · ctx ${clean(session.context || '-')}`;
	const connLabel = clean(conn.label);
	const loopText =
		loop.on && loop.pool && (screen === 'pools' || loop.pool === poolName)
			? `${loop.running ? '  ⟳ loop: reconciling' : '  ⟳ loop on'}${screen === 'pools' ? ` ${clean(loop.pool)}` : ''}`
			: '';
	const placeWidth = Math.max(
		8,
		columns - displayWidth(`ctpool    ${connLabel}${loopText}${session.readOnly ? READ_ONLY : ''}`),
	);
	const c = pool?.counts;
	const desired = knownSpec && pool ? String(pool.counts.desired) : UNKNOWN;
	return (
		<Box flexDirection="column">
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
				{session.readOnly ? <Text color={theme.warn}>{READ_ONLY}</Text> : null}
			</Text>
			{screen !== 'pools' && !helpOpen ? (
				<>
					<Text wrap="truncate" color={pool?.specError ? theme.error : undefined}>
						{clean(specLine(pool, poolName ?? '', knownSpec))}
					</Text>
					<Text wrap="truncate">
						{!knownCounts ? (
							<Text color={theme.muted}>
								desired {desired} observed {UNKNOWN} ready {UNKNOWN} claimed {UNKNOWN} free{' '}
								{UNKNOWN} unschedulable {UNKNOWN} drifted {UNKNOWN}
							</Text>
						) : c ? (
							<>
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
								<Text>
									desired {knownSpec ? c.desired : UNKNOWN} observed {c.observed} ready {c.ready}{' '}
									claimed {c.claimed} free{' '}
								</Text>
								<Text bold color={c.free === 0 && c.observed > 0 ? theme.error : theme.ok}>
									{c.free}
								</Text>
								<Text>
									{' '}
									unschedulable {c.unschedulable} drifted {c.drifted}
								</Text>
							</>
						) : (
							<Text color={theme.muted}>no members seen yet</Text>
						)}
					</Text>
				</>
			) : null}
			{session.note ? (
				<Text wrap="truncate" color={theme.accent}>
					{clean(session.note)}
				</Text>
			) : null}
		</Box>
	);
}
