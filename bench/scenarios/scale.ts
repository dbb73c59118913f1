/**
 * Scenario 5, scale: many pools at once (by default 20 pools of 500 members, 10,000
 * members). Start-up = from spawn to the complete pools table (every pool with all its
 * members observed and Ready), against `kubectl get pods -l <pool label>` over the same
 * namespaces. Then the console opens the first pool and the churn generator spreads its
 * changes over every pool the console watches, the Lease holders of the first pool's
 * members on screen carrying the tokens: latency (against `kubectl get leases -w` over the
 * same namespaces, in a terminal at the same time, round by round), CPU share (against the
 * bare list+watch client of the same objects), peak RSS.
 */

import { POOL_LABEL } from '../../source/pool/names.js';
import { type PtyProcess, startPty } from '../../test/support/terminal.js';
import { waitFor } from '../../test/support/wait.js';
import { mapLimit } from '../api-client.js';
import { spawnBareClient } from '../bare-client.js';
import { sleep, wallMs } from '../clock.js';
import { type ConsoleRun, startConsole } from '../console-process.js';
import { isTableComplete } from '../console-screen.js';
import { type BenchContext, profileArgs, type ResultRow, type ScenarioResult } from '../context.js';
import { INITIAL_HOLDER } from '../desk-pool.js';
import { kubectlArgs, kubectlEnv } from '../kubectl.js';
import { definableSize, makePool, readyPods } from '../pool-setup.js';
import { cpuMs, peakRssMb } from '../proc-stats.js';
import { spread } from '../stats.js';
import { TokenScanner } from '../token-scanner.js';
import { cpuGoalRows, type LatencyFigures, latencies, startChurn } from './live.js';

/**
 * Whether the console watches every namespace (`ctpool -A`, the pools spread over
 * --scale-namespaces namespaces) or one namespace (every pool in it). The one line to switch
 * once the console runs across namespaces.
 */
const ACROSS_NAMESPACES = true;

/** One pool of the scale scenario. */
export interface ScalePool {
	namespace: string;
	pool: string;
}

/**
 * The pools of the scenario: fleet-01 .. fleet-NN, dealt round-robin over the namespaces
 * scale-1 .. scale-K (one namespace when the console cannot watch across namespaces).
 */
export function scalePools(ctx: BenchContext): ScalePool[] {
	const namespaces = ACROSS_NAMESPACES ? ctx.opts.scaleNamespaces : 1;
	const width = Math.max(2, String(ctx.opts.scalePools).length);
	return Array.from({ length: ctx.opts.scalePools }, (_, i) => ({
		namespace: `scale-${(i % namespaces) + 1}`,
		pool: `fleet-${String(i + 1).padStart(width, '0')}`,
	}));
}

/** The console's arguments: across namespaces, or the one namespace the pools are in. */
function consoleArgs(pools: ScalePool[]): string[] {
	return ACROSS_NAMESPACES ? ['-A'] : ['-n', pools[0]!.namespace];
}

/** The members on screen of the first pool whose Lease holders carry the tokens. */
function visibleOf(ctx: BenchContext, pool: string): string[] {
	const n = Math.min(ctx.opts.visible, ctx.opts.scaleMembers);
	return Array.from({ length: n }, (_, i) => `${pool}-${i + 1}`);
}

const made = new WeakMap<BenchContext, Promise<void>>();

/** Makes the scenario's pools the first time it is asked (4 pools at a time). */
export function scaleSetup(ctx: BenchContext): Promise<void> {
	let p = made.get(ctx);
	if (!p) {
		const pools = scalePools(ctx);
		const first = pools[0]!.pool;
		ctx.log(
			`making ${pools.length} pools of ${ctx.opts.scaleMembers} members in ${new Set(pools.map((x) => x.namespace)).size} namespaces`,
		);
		const t0 = wallMs();
		p = mapLimit(pools, 4, (x) =>
			makePool(ctx.sim.api, {
				...x,
				members: ctx.opts.scaleMembers,
				concurrency: 12,
				readyTimeoutMs: 600_000,
				leases:
					x.pool === first
						? visibleOf(ctx, first).map((member) => ({ member, holder: INITIAL_HOLDER }))
						: [],
			}),
		).then(() =>
			ctx.log(
				`scale pools: ${pools.length * ctx.opts.scaleMembers} members Ready after ${((wallMs() - t0) / 1000).toFixed(1)} s`,
			),
		);
		made.set(ctx, p);
	}
	return p;
}

function escapeRe(s: string): string {
	return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when the pools screen is live and shows every pool with all its members observed and
 * the cluster's count of Ready ones (the SIZE/OBS column, then READY).
 */
export function isPoolsTableComplete(
	lines: readonly string[],
	ready: ReadonlyMap<string, number>,
	members: number,
): boolean {
	if (!lines[0]?.includes('● live')) return false;
	const size = definableSize(members);
	return [...ready].every(([pool, n]) => {
		const row = new RegExp(`(^|\\s)${escapeRe(pool)}\\s.*\\s${size}/${members}\\s+${n}\\s`);
		return lines.some((l) => row.test(`${l} `));
	});
}

/** How many pool rows the pools screen shows above the pool's row (0 when it is the first). */
export function rowsAbove(lines: readonly string[], pool: string): number {
	const title = lines.findIndex((l) => /\bPOOL\b/.test(l) && /SIZE\/OBS/.test(l));
	const row = new RegExp(`(^|\\s)${escapeRe(pool)}\\s`);
	const at = lines.findIndex((l, i) => i > title && row.test(l));
	return title >= 0 && at > title ? at - title - 1 : 0;
}

/** One round's figures. */
interface ScaleRound {
	startupMs: number;
	startupCpuMs: number | null;
	kubectlMs: number | null;
	kubectlLines: number | null;
	latency: LatencyFigures;
	/** `kubectl get leases -w` in a terminal beside the console, through the same churn. */
	kubectlWatch: (LatencyFigures & { cpuShare: number }) | null;
	cpuShare: number;
	bareCpuShare: number;
	peakRssMb: number | null;
	bareRssMb: number | null;
	achievedRate: number;
}

/**
 * `kubectl get leases -w -l <pool label>` over the scenario's namespaces in a terminal of the
 * console's size (the live scenario's baseline): the tokens it prints, and its text so far.
 */
function startKubectlWatch(ctx: BenchContext, pools: ScalePool[], scanner: TokenScanner) {
	const k = ctx.kubectl!;
	const scope = ACROSS_NAMESPACES ? ['-A'] : ['-n', pools[0]!.namespace];
	const pty = startPty(k.bin, kubectlArgs(k, ['get', 'leases', '-w', '-l', POOL_LABEL, ...scope]), {
		columns: ctx.opts.columns,
		rows: ctx.opts.rows,
		env: kubectlEnv(k),
		cwd: ctx.root,
	});
	let text = '';
	pty.onChunk((d, at) => {
		if (text.length < 100_000) text += d;
		scanner.feed(d, at);
	});
	return { pty, text: () => text };
}

/** `kubectl get pods -l <pool label>` over the scenario's namespaces, timed from spawn to exit. */
async function kubectlOnce(ctx: BenchContext, pools: ScalePool[]) {
	const k = ctx.kubectl!;
	const scope = ACROSS_NAMESPACES ? ['-A'] : ['-n', pools[0]!.namespace];
	const pty = startPty(k.bin, kubectlArgs(k, ['get', 'pods', '-l', POOL_LABEL, ...scope]), {
		columns: ctx.opts.columns,
		rows: ctx.opts.rows,
		env: kubectlEnv(k),
		cwd: ctx.root,
	});
	let text = '';
	pty.onChunk((d) => {
		text += d;
	});
	const code = await pty.exited;
	const ended = wallMs();
	if (code !== 0) throw new Error(`kubectl get pods failed (${code}): ${text.slice(0, 500)}`);
	const lines = text.split('\n').filter((l) => /\bfleet-\d+-\d+\s/.test(l)).length;
	return { ms: ended - pty.startedAt, lines };
}

async function scaleRound(ctx: BenchContext, round: number, notes: string[]): Promise<ScaleRound> {
	const { opts } = ctx;
	const pools = scalePools(ctx);
	const first = pools[0]!;
	const visible = visibleOf(ctx, first.pool);
	const prefix = `ts${round}x`;
	const scanner = new TokenScanner(new RegExp(`${prefix}\\d{6}`, 'g'), prefix.length + 6);
	const kcScanner = new TokenScanner(new RegExp(`${prefix}\\d{6}`, 'g'), prefix.length + 6);
	let watch: { pty: PtyProcess; text: () => string } | null = null;
	const members = opts.scaleMembers;
	// the churn of an earlier round leaves some pods not Ready: expect what the cluster says
	const ready = new Map<string, number>();
	for (const p of pools) ready.set(p.pool, await readyPods(ctx.sim.api, p.namespace, p.pool));
	const tui: ConsoleRun = startConsole(ctx, {
		want: {
			what: `the complete pools table (${pools.length} pools of ${members})`,
			check: (lines) => isPoolsTableComplete(lines, ready, members),
		},
		args: consoleArgs(pools),
		nodeArgs: profileArgs(ctx, 'scale'),
		timeoutMs: 180_000,
	});
	tui.pty.onChunk((d, at) => scanner.feed(d, at));
	const bare = spawnBareClient(ctx.benchDir, {
		url: ctx.sim.info.url,
		token: ctx.sim.info.token,
		namespace: ACROSS_NAMESPACES ? null : first.namespace,
		labelSelector: POOL_LABEL,
	});
	try {
		const at = await tui.complete;
		const startupMs = at - tui.pty.startedAt;
		const startupCpuMs = cpuMs(tui.pty.pid);
		// open the first scale pool: the selection starts on the first row, and other scenarios'
		// pools (other namespaces) may come before it
		tui.pty.write(`${'j'.repeat(rowsAbove(tui.lines(), first.pool))}\r`);
		await tui.until(
			`the members table of ${first.pool}`,
			(lines) =>
				isTableComplete(lines, {
					pool: first.pool,
					observed: members,
					ready: ready.get(first.pool) ?? members,
					rows: Math.min(members, Math.max(1, opts.rows - 10)),
				}),
			60_000,
		);
		tui.detachScreen();
		// the baseline of the latency: kubectl's watch of the Leases, started once the table is
		// complete (its list must not slow the console's), listed before the churn starts
		if (ctx.kubectl) {
			const w = startKubectlWatch(ctx, pools, kcScanner);
			watch = w;
			await waitFor(() => (w.text().match(/corral-vdi-ct-/g)?.length ?? 0) >= visible.length, {
				what: 'kubectl get leases -w to list the Leases',
				timeoutMs: 30_000,
				intervalMs: 50,
				detail: () => w.text(),
			});
		}
		await bare.ready;
		await sleep(500);
		const offscreen = Array.from(
			{ length: Math.max(0, members - opts.rows) },
			(_, i) => `${first.pool}-${opts.rows + 1 + i}`,
		);
		const churn = startChurn(ctx, {
			url: ctx.sim.info.url,
			token: ctx.sim.info.token,
			namespace: first.namespace,
			pool: first.pool,
			rate: opts.churn,
			seconds: opts.seconds,
			visibleShare: opts.visibleShare,
			visibleMembers: visible,
			offscreenMembers: offscreen,
			offscreenPools: pools.slice(1),
			tokenPrefix: prefix,
			maxInFlight: 64,
		});
		await churn.started;
		const t0 = wallMs();
		const cpu0 = cpuMs(tui.pty.pid) ?? 0;
		const bare0 = cpuMs(bare.pid) ?? 0;
		const kc0 = watch ? (cpuMs(watch.pty.pid) ?? 0) : 0;
		const result = await churn.done;
		const t1 = wallMs();
		const cpu1 = cpuMs(tui.pty.pid) ?? Number.NaN;
		const bare1 = cpuMs(bare.pid) ?? Number.NaN;
		const kc1 = watch ? (cpuMs(watch.pty.pid) ?? Number.NaN) : 0;
		const scanners = watch ? [scanner, kcScanner] : [scanner];
		const until = wallMs() + 3000;
		while (
			wallMs() < until &&
			!scanners.every((s) => result.tokens.every((t) => s.seen.has(t.token)))
		)
			await sleep(100);
		const kubectlWatch = watch
			? { ...latencies(result.tokens, kcScanner.seen), cpuShare: ((kc1 - kc0) / (t1 - t0)) * 100 }
			: null;
		await watch?.pty.stop();
		if (result.errors > 0)
			notes.push(
				`round ${round}: ${result.errors} churn writes failed: ${result.firstError ?? ''}`,
			);
		if (result.skipped > 0)
			notes.push(
				`round ${round}: the churn generator fell behind and skipped ${result.skipped} writes`,
			);
		const k = ctx.kubectl ? await kubectlOnce(ctx, pools) : null;
		if (k && k.lines !== pools.length * members)
			notes.push(
				`round ${round}: kubectl printed ${k.lines} pod lines, not ${pools.length * members}`,
			);
		return {
			startupMs,
			startupCpuMs,
			kubectlMs: k?.ms ?? null,
			kubectlLines: k?.lines ?? null,
			latency: latencies(result.tokens, scanner.seen),
			kubectlWatch,
			cpuShare: ((cpu1 - cpu0) / (t1 - t0)) * 100,
			bareCpuShare: ((bare1 - bare0) / (t1 - t0)) * 100,
			peakRssMb: peakRssMb(tui.pty.pid),
			bareRssMb: peakRssMb(bare.pid),
			achievedRate: result.achievedRate,
		};
	} finally {
		tui.detachScreen();
		bare.stop();
		await Promise.all([tui.pty.stop(), watch?.pty.stop()]);
	}
}

/** Runs the scale scenario. */
export async function scaleScenario(ctx: BenchContext): Promise<ScenarioResult> {
	await scaleSetup(ctx);
	const notes: string[] = [];
	if (!ctx.kubectl)
		notes.push(
			'kubectl is not on the PATH: the scale baselines (get pods, get leases -w) were skipped',
		);
	if (!ACROSS_NAMESPACES)
		notes.push(
			'the console watches one namespace holding every pool (ctpool -n); switch to -A once the console runs across namespaces',
		);
	const rounds: ScaleRound[] = [];
	for (let r = 1; r <= ctx.opts.rounds; r++) {
		const round = await scaleRound(ctx, r, notes);
		rounds.push(round);
		ctx.log(
			`scale round ${r}: pools table ${round.startupMs.toFixed(0)} ms (kubectl ${round.kubectlMs?.toFixed(0) ?? '-'} ms); ${round.achievedRate.toFixed(0)} changes/s, p99 ${round.latency.p99.toFixed(0)} ms (kubectl -w ${round.kubectlWatch?.p99.toFixed(0) ?? '-'} ms, missed ${round.latency.missed}), CPU ${round.cpuShare.toFixed(1)} % (bare ${round.bareCpuShare.toFixed(1)} %), peak ${round.peakRssMb?.toFixed(0)} MB`,
		);
	}
	const s = (f: (r: ScaleRound) => number | null) => spread(rounds.map((r) => f(r) ?? Number.NaN));
	const total = ctx.opts.scalePools * ctx.opts.scaleMembers;
	const startup = s((r) => r.startupMs);
	const kubectl = ctx.kubectl ? s((r) => r.kubectlMs) : undefined;
	const cpu = s((r) => r.cpuShare);
	const bareCpu = s((r) => r.bareCpuShare);
	const rss = s((r) => r.peakRssMb);
	const bareRss = s((r) => r.bareRssMb);
	const kw = (f: (k: NonNullable<ScaleRound['kubectlWatch']>) => number) =>
		ctx.kubectl ? s((r) => (r.kubectlWatch ? f(r.kubectlWatch) : null)) : undefined;
	const latencyRow = (p: 'p50' | 'p99'): ResultRow => {
		const base = kw((k) => k[p]);
		return {
			scenario: 'scale',
			metric: `latency ${p}`,
			unit: 'ms',
			ctpool: s((r) => r.latency[p]),
			...(base ? { baseline: base, baselineName: 'kubectl get leases -w' } : {}),
		};
	};
	// p99 is judged round by round against kubectl's in the same round: every round, not the median
	const p99 = latencyRow('p99');
	if (p99.baseline)
		p99.target = {
			text: '<= kubectl p99 + 50 ms, every round',
			met: rounds.every((r) => r.kubectlWatch && r.latency.p99 <= r.kubectlWatch.p99 + 50),
		};
	// peak RSS by its worst round, against the bare client's in the same round
	const rssMet = rounds.every(
		(r) => r.peakRssMb !== null && r.bareRssMb !== null && r.peakRssMb <= 1.2 * r.bareRssMb,
	);
	const kcpu = kw((k) => k.cpuShare);
	const rows: ResultRow[] = [
		{
			scenario: 'scale',
			metric: `complete pools table (${ctx.opts.scalePools} pools, ${total} members)`,
			unit: 'ms',
			ctpool: startup,
			...(kubectl
				? {
						baseline: kubectl,
						baselineName: 'kubectl get pods -l (all pools)',
						target: { text: '<= 1.0 x kubectl', met: startup.median <= kubectl.median },
					}
				: {}),
		},
		{
			scenario: 'scale',
			metric: 'CPU until the pools table is complete',
			unit: 'ms',
			ctpool: s((r) => r.startupCpuMs),
		},
		latencyRow('p50'),
		p99,
		{
			scenario: 'scale',
			metric: 'tokens never shown',
			unit: 'count',
			ctpool: s((r) => r.latency.missed),
			...(ctx.kubectl
				? { baseline: kw((k) => k.missed)!, baselineName: 'kubectl get leases -w' }
				: {}),
		},
		// the live view's goals, across every pool
		...cpuGoalRows(
			'scale',
			cpu,
			bareCpu,
			kcpu ? { baseline: kcpu, baselineName: 'kubectl get leases -w' } : {},
		),
		{
			scenario: 'scale',
			metric: 'peak RSS',
			unit: 'MB',
			ctpool: rss,
			baseline: bareRss,
			baselineName: 'bare list+watch client',
			target: {
				text: '<= 1.2 x bare client (every round), <= 300 MB',
				met: rssMet && rss.max <= 300,
			},
		},
		{
			scenario: 'scale',
			metric: 'churn achieved',
			unit: 'changes/s',
			ctpool: s((r) => r.achievedRate),
		},
	];
	return { rows, detail: { rounds }, notes };
}
