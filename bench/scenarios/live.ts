/**
 * Scenario 1, live-view latency and cost. ctpool's console (in a terminal) and
 * `kubectl get leases -w` (in a terminal of the same size) watch the big pool while the
 * churn generator (its own process) makes changes: most flip the readiness of pods far below
 * the screen, every n-th sets the Lease holder of a member on screen to a unique token.
 * Latency = from the moment the write is sent to the token's first appearance in the bytes
 * the program wrote to its terminal (not from its acknowledgement: on a loaded machine the
 * watch event can reach a watcher before the write's answer reaches the generator). Cost = ctpool's CPU share over the churn window, its
 * peak RSS, and the bytes it wrote per second.
 */

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { POOL_LABEL } from '../../source/pool/names.js';
import { type PtyProcess, startPty } from '../../test/support/terminal.js';
import { waitFor } from '../../test/support/wait.js';
import { type BareClientProcess, spawnBareClient } from '../bare-client.js';
import type { ChurnOptions, ChurnResult } from '../churn.js';
import { sleep, wallMs } from '../clock.js';
import { startConsole } from '../console-process.js';
import {
	type BenchContext,
	profileArgs,
	type ResultRow,
	type ScenarioName,
	type ScenarioResult,
} from '../context.js';
import { DESK, deskPool, visibleMembers } from '../desk-pool.js';
import { kubectlArgs, kubectlEnv } from '../kubectl.js';
import { readyPods } from '../pool-setup.js';
import { cpuMs, peakRssMb } from '../proc-stats.js';
import { percentile, type Spread, spread } from '../stats.js';
import { TokenScanner } from '../token-scanner.js';
import { rowsToCheck } from './startup.js';

/**
 * Latency percentiles of one program in one round (ms), and how many tokens never showed
 * although they stayed their member's holder for MUST_SHOW_MS or longer.
 */
export interface LatencyFigures {
	p50: number;
	p95: number;
	p99: number;
	max: number;
	seen: number;
	missed: number;
}

/** One round's figures. */
interface LiveRound {
	churn: Omit<ChurnResult, 'tokens'>;
	ctpool: LatencyFigures & {
		cpuShare: number;
		peakRssMb: number | null;
		bytesPerSecond: number;
	};
	kubectl: (LatencyFigures & { cpuShare: number; bytesPerSecond: number }) | null;
	/** The bare client watching the same objects: the floor of a watcher's cost. */
	bare: { cpuShare: number; peakRssMb: number | null };
}

/**
 * How long a token must stay its member's Lease holder to count as missed when it never
 * shows: a console draws frames, not events, so a holder replaced before the next frame (or
 * the next watch batch, on a loaded machine) may rightly never be on screen.
 */
const MUST_SHOW_MS = 1000;

/** Latency percentiles of the tokens a program showed, and the tokens it never showed. */
export function latencies(
	tokens: ChurnResult['tokens'],
	seen: Map<string, number>,
): LatencyFigures {
	const values: number[] = [];
	let missed = 0;
	// When each token stopped being its member's holder (the next token's write for that member).
	const replacedAt = new Map<string, number>();
	const last = new Map<string, ChurnResult['tokens'][number]>();
	for (const t of [...tokens].sort((a, b) => a.sentAt - b.sentAt)) {
		const before = last.get(t.member);
		if (before) replacedAt.set(before.token, t.sentAt);
		last.set(t.member, t);
	}
	for (const t of tokens) {
		const at = seen.get(t.token);
		if (at !== undefined) values.push(at - t.sentAt);
		else if ((replacedAt.get(t.token) ?? Number.POSITIVE_INFINITY) - t.ackAt >= MUST_SHOW_MS)
			missed++;
	}
	return {
		p50: percentile(values, 50),
		p95: percentile(values, 95),
		p99: percentile(values, 99),
		max: percentile(values, 100),
		seen: values.length,
		missed,
	};
}

/** The churn generator as a child process: resolves start and done (both reject if it dies). */
export function startChurn(ctx: BenchContext, opts: ChurnOptions) {
	const child = spawn(
		process.execPath,
		[join(ctx.benchDir, 'churn-child.js'), JSON.stringify(opts)],
		{ stdio: ['ignore', 'pipe', 'inherit'] },
	);
	const lines = createInterface({ input: child.stdout });
	let onStart: (at: number) => void = () => {};
	let onDone: (r: ChurnResult) => void = () => {};
	let onFail: (e: Error) => void = () => {};
	const started = new Promise<number>((resolve, reject) => {
		onStart = resolve;
		child.once('exit', (code) => reject(new Error(`the churn generator exited with ${code}`)));
	});
	const done = new Promise<ChurnResult>((resolve, reject) => {
		onDone = resolve;
		onFail = reject;
	});
	started.catch(() => {});
	done.catch(() => {});
	lines.on('line', (line) => {
		const msg = JSON.parse(line) as { event: string };
		if (msg.event === 'start') onStart(wallMs());
		else if (msg.event === 'done') onDone(msg as ChurnResult);
	});
	child.once('exit', (code) => onFail(new Error(`the churn generator exited with ${code}`)));
	return { started, done, pid: child.pid ?? 0 };
}

/** Waits until every token shows in the scanner, or the time is up. */
async function waitForTokens(scanners: TokenScanner[], tokens: string[], ms: number) {
	await waitFor(() => scanners.every((s) => tokens.every((t) => s.seen.has(t))), {
		timeoutMs: ms,
		intervalMs: 100,
	}).catch(() => {});
}

async function liveRound(ctx: BenchContext, round: number, notes: string[]): Promise<LiveRound> {
	const { opts } = ctx;
	const visible = visibleMembers(ctx);
	const ready = await readyPods(ctx.sim.api, DESK.namespace, DESK.pool);
	const prefix = `tq${round}x`;
	const pattern = new RegExp(`${prefix}\\d{6}`, 'g');
	const tokenLength = prefix.length + 6;

	const tui = startConsole(
		ctx,
		{ pool: DESK.pool, observed: opts.members, ready, rows: rowsToCheck(ctx) },
		{ nodeArgs: profileArgs(ctx, 'live') },
	);
	const ctScanner = new TokenScanner(pattern, tokenLength);
	tui.pty.onChunk((d, at) => ctScanner.feed(d, at));

	let kubectl: PtyProcess | null = null;
	const kcScanner = new TokenScanner(pattern, tokenLength);
	let kcText = '';
	if (ctx.kubectl) {
		const k = ctx.kubectl;
		kubectl = startPty(
			k.bin,
			kubectlArgs(k, [
				'get',
				'leases',
				'-w',
				'-l',
				`${POOL_LABEL}=${DESK.pool}`,
				'-n',
				DESK.namespace,
			]),
			{ columns: opts.columns, rows: opts.rows, env: kubectlEnv(k), cwd: ctx.root },
		);
		kubectl.onChunk((d, at) => {
			if (kcText.length < 100_000) kcText += d;
			kcScanner.feed(d, at);
		});
	}
	// The floor: a bare client doing the console's list+watch and nothing else.
	const bare: BareClientProcess = spawnBareClient(ctx.benchDir, {
		url: ctx.sim.info.url,
		token: ctx.sim.info.token,
		namespace: DESK.namespace,
		labelSelector: POOL_LABEL,
	});
	try {
		await Promise.all([tui.complete, bare.ready]);
		tui.detachScreen();
		if (kubectl) {
			await waitFor(() => (kcText.match(/corral-vdi-ct-/g)?.length ?? 0) >= visible.length, {
				what: 'kubectl get leases -w to list the Leases',
				timeoutMs: 30_000,
				intervalMs: 50,
				detail: () => kcText,
			});
		}
		await sleep(500); // let both settle after their first screen

		// members past the terminal's height are never on screen (rows stay in index order)
		const offscreen = Array.from(
			{ length: Math.max(0, opts.members - opts.rows) },
			(_, i) => `${DESK.pool}-${opts.rows + 1 + i}`,
		);
		const churn = startChurn(ctx, {
			url: ctx.sim.info.url,
			token: ctx.sim.info.token,
			namespace: DESK.namespace,
			pool: DESK.pool,
			rate: opts.churn,
			seconds: opts.seconds,
			visibleShare: opts.visibleShare,
			visibleMembers: visible,
			offscreenMembers: offscreen,
			tokenPrefix: prefix,
			maxInFlight: 64,
		});
		await churn.started;
		const t0 = wallMs();
		const cpu0 = cpuMs(tui.pty.pid) ?? 0;
		const kcCpu0 = kubectl ? (cpuMs(kubectl.pid) ?? 0) : 0;
		const bareCpu0 = cpuMs(bare.pid) ?? 0;
		const bytes0 = tui.pty.bytes();
		const kcBytes0 = kubectl?.bytes() ?? 0;
		const result = await churn.done;
		const t1 = wallMs();
		const cpu1 = cpuMs(tui.pty.pid) ?? Number.NaN;
		const kcCpu1 = kubectl ? (cpuMs(kubectl.pid) ?? Number.NaN) : 0;
		const bareCpu1 = cpuMs(bare.pid) ?? Number.NaN;
		const bareRss = peakRssMb(bare.pid);
		const bytes1 = tui.pty.bytes();
		const kcBytes1 = kubectl?.bytes() ?? 0;
		const windowS = (t1 - t0) / 1000;
		await waitForTokens(
			kubectl ? [ctScanner, kcScanner] : [ctScanner],
			result.tokens.map((t) => t.token),
			3000,
		);
		const rss = peakRssMb(tui.pty.pid);
		if (result.errors > 0)
			notes.push(
				`round ${round}: ${result.errors} churn writes failed: ${result.firstError ?? ''}`,
			);
		if (result.skipped > 0)
			notes.push(
				`round ${round}: the churn generator fell behind and skipped ${result.skipped} writes`,
			);
		const { tokens, ...churnFigures } = result;
		return {
			churn: churnFigures,
			ctpool: {
				...latencies(tokens, ctScanner.seen),
				cpuShare: ((cpu1 - cpu0) / (t1 - t0)) * 100,
				peakRssMb: rss,
				bytesPerSecond: (bytes1 - bytes0) / windowS,
			},
			kubectl: kubectl
				? {
						...latencies(tokens, kcScanner.seen),
						cpuShare: ((kcCpu1 - kcCpu0) / (t1 - t0)) * 100,
						bytesPerSecond: (kcBytes1 - kcBytes0) / windowS,
					}
				: null,
			bare: {
				cpuShare: ((bareCpu1 - bareCpu0) / (t1 - t0)) * 100,
				peakRssMb: bareRss,
			},
		};
	} finally {
		tui.detachScreen();
		bare.stop();
		await Promise.all([tui.pty.stop(), kubectl?.stop()]);
	}
}

/** Runs the live-view scenario. */
export async function liveScenario(ctx: BenchContext): Promise<ScenarioResult> {
	await deskPool(ctx);
	const notes: string[] = [];
	if (!ctx.kubectl) notes.push('kubectl is not on the PATH: the live-view baseline was skipped');
	const rounds: LiveRound[] = [];
	for (let r = 1; r <= ctx.opts.rounds; r++) {
		const round = await liveRound(ctx, r, notes);
		rounds.push(round);
		ctx.log(
			`live round ${r}: ${round.churn.achievedRate.toFixed(0)} changes/s; ctpool p50/p99 ${round.ctpool.p50.toFixed(0)}/${round.ctpool.p99.toFixed(0)} ms (missed ${round.ctpool.missed}), CPU ${round.ctpool.cpuShare.toFixed(1)} % (bare client ${round.bare.cpuShare.toFixed(1)} %), ${(round.ctpool.bytesPerSecond / 1024).toFixed(1)} KB/s, peak ${round.ctpool.peakRssMb?.toFixed(0)} MB; kubectl p50/p99 ${round.kubectl ? `${round.kubectl.p50.toFixed(0)}/${round.kubectl.p99.toFixed(0)} ms` : 'skipped'}`,
		);
	}
	const ct = (f: (r: LiveRound) => number) => spread(rounds.map(f));
	const kc = (f: (r: NonNullable<LiveRound['kubectl']>) => number) =>
		ctx.kubectl ? spread(rounds.map((r) => (r.kubectl ? f(r.kubectl) : Number.NaN))) : undefined;
	const p99 = ct((r) => r.ctpool.p99);
	const kp99 = kc((k) => k.p99);
	const rows: ResultRow[] = [];
	for (const p of ['p50', 'p95'] as const) {
		const base = kc((k) => k[p]);
		rows.push({
			scenario: 'live',
			metric: `latency ${p}`,
			unit: 'ms',
			ctpool: ct((r) => r.ctpool[p]),
			...(base ? { baseline: base, baselineName: 'kubectl get leases -w' } : {}),
		});
	}
	rows.push({
		scenario: 'live',
		metric: 'latency p99',
		unit: 'ms',
		ctpool: p99,
		...(kp99
			? {
					baseline: kp99,
					baselineName: 'kubectl get leases -w',
					target: { text: '<= kubectl p99 + 50 ms', met: p99.median <= kp99.median + 50 },
				}
			: {}),
	});
	const missed = ct((r) => r.ctpool.missed);
	const kmissed = kc((k) => k.missed);
	rows.push({
		scenario: 'live',
		metric: 'tokens never shown',
		unit: 'count',
		ctpool: missed,
		...(kmissed ? { baseline: kmissed, baselineName: 'kubectl get leases -w' } : {}),
	});
	const kcpu = kc((k) => k.cpuShare);
	rows.push(
		...cpuGoalRows(
			'live',
			ct((r) => r.ctpool.cpuShare),
			ct((r) => r.bare.cpuShare),
			kcpu ? { baseline: kcpu, baselineName: 'kubectl get leases -w' } : {},
		),
	);
	const rss = ct((r) => r.ctpool.peakRssMb ?? Number.NaN);
	rows.push({
		scenario: 'live',
		metric: 'peak RSS',
		unit: 'MB',
		ctpool: rss,
		baseline: ct((r) => r.bare.peakRssMb ?? Number.NaN),
		baselineName: 'bare list+watch client',
		target: { text: '<= 150 MB', met: rss.max <= 150 },
	});
	const bytes = ct((r) => r.ctpool.bytesPerSecond / 1024);
	const kbytes = kc((k) => k.bytesPerSecond / 1024);
	rows.push({
		scenario: 'live',
		metric: 'terminal output',
		unit: 'KB/s',
		ctpool: bytes,
		...(kbytes ? { baseline: kbytes, baselineName: 'kubectl get leases -w' } : {}),
		target: { text: '<= 30 KB/s', met: bytes.median <= 30 },
	});
	rows.push({
		scenario: 'live',
		metric: 'churn achieved',
		unit: 'changes/s',
		ctpool: ct((r) => r.churn.achievedRate),
	});
	return { rows, detail: { rounds }, notes };
}

/**
 * The live view's CPU goals as rows: at most a quarter of a core, and at most five times the
 * bare client's share in the same run (the first row may carry another baseline).
 */
export function cpuGoalRows(
	scenario: ScenarioName,
	cpu: Spread,
	bareCpu: Spread,
	other: Pick<ResultRow, 'baseline' | 'baselineName'> = {},
): ResultRow[] {
	return [
		{
			scenario,
			metric: 'CPU share of one core',
			unit: '%',
			ctpool: cpu,
			...other,
			target: { text: '<= 25 %', met: cpu.median <= 25 },
		},
		{
			scenario,
			metric: 'CPU share against the bare client',
			unit: '%',
			ctpool: cpu,
			baseline: bareCpu,
			baselineName: 'bare list+watch client',
			target: { text: '<= 5 x bare client', met: cpu.median <= 5 * bareCpu.median },
		},
	];
}
