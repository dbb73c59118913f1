/**
 * The picture of the open pool, one line under its counts: sparklines of claimed and
 * claimable members over the time the console has watched, and the exhaustion banner
 * (`EXHAUSTED since 02:14 (12m)`), which is never cut: the sparklines shrink first. Before
 * the console's first sample the claimed line goes on, dim, as far as the pool's Events let it
 * be rebuilt (claimedBefore); claimable is only ever what the console saw.
 */

import { Text } from 'ink';
import { useMemo } from 'react';
import { claimedBefore, exhaustionBanner, SAMPLE_MS, sparkline } from '../model/pool-history.js';
import { poolKey } from '../model/pool-index.js';
import { displayWidth } from '../render/text-fit.js';
import { useTheme } from '../render/theme.js';
import { useConsole } from './use-console.js';

/**
 * The sparkline parts of the line at a width: labels, the two lines, and the banner. before is
 * the claimed members rebuilt from Events ahead of the samples (drawn dim, as `rebuilt`).
 */
export function picture(
	samples: readonly { claimed: number; claimable: number; desired: number }[],
	banner: string | null,
	width: number,
	before: readonly number[] = [],
): { rebuilt: string; claimed: string; claimable: string; banner: string } {
	const tail = banner ? `  ${banner}` : '';
	const last = samples.at(-1);
	const labels = `claimed ${last?.claimed ?? 0} · claimable ${last?.claimable ?? 0} `;
	const room = Math.max(0, width - displayWidth(tail) - displayWidth(labels) - 2);
	const each = Math.min(Math.floor(room / 2), before.length + samples.length);
	const watched = Math.min(each, samples.length);
	const max = samples.reduce(
		(m, s) => Math.max(m, s.desired, s.claimed, s.claimable),
		Math.max(1, ...before),
	);
	const claimed = Array.from(sparkline([...before, ...samples.map((s) => s.claimed)], max, each));
	return {
		rebuilt: claimed.slice(0, each - watched).join(''),
		claimed: claimed.slice(each - watched).join(''),
		claimable: sparkline(
			samples.map((s) => s.claimable),
			max,
			watched,
		),
		banner: tail,
	};
}

/** The picture line of the open pool. */
export function PoolPicture({ width }: { width: number }) {
	const theme = useTheme();
	const history = useConsole((s) => (s.pool ? s.history[s.pool] : undefined));
	const counts = useConsole((s) => (s.pool ? s.pools[s.pool]?.counts : undefined));
	const now = useConsole((s) => s.now);
	const audit = useConsole((s) => s.audit);
	const key = useConsole((s) => s.pool);
	const allNamespaces = useConsole((s) => s.session.allNamespaces === true);
	const first = history?.samples[0];
	// rebuilt once per sample step, not on every tick
	const step = Math.floor(now / SAMPLE_MS);
	const before = useMemo(
		() =>
			first && key
				? claimedBefore(
						audit,
						(e) => poolKey(allNamespaces ? e.namespace : null, e.pool) === key,
						first,
						step * SAMPLE_MS,
					)
				: [],
		[audit, key, allNamespaces, first, step],
	);
	if (!history || !counts)
		return (
			<Text wrap="truncate" color={theme.muted}>
				history: one sample every {SAMPLE_MS / 1000}s while the console watches
			</Text>
		);
	// the newest point is now, between two samples
	const samples = [
		...history.samples,
		{ claimed: counts.claimed, claimable: counts.free, desired: counts.desired },
	];
	const banner = exhaustionBanner(history, now);
	const p = picture(samples, banner, width, before);
	return (
		<Text wrap="truncate">
			<Text>claimed {counts.claimed} </Text>
			{p.rebuilt ? (
				<Text color={theme.muted} dimColor>
					{p.rebuilt}
				</Text>
			) : null}
			<Text color={theme.accent}>{p.claimed}</Text>
			<Text> · claimable {counts.free} </Text>
			<Text color={counts.free === 0 && counts.observed > 0 ? theme.error : theme.ok}>
				{p.claimable}
			</Text>
			{p.banner ? (
				<Text bold color={theme.error}>
					{p.banner}
				</Text>
			) : null}
		</Text>
	);
}
