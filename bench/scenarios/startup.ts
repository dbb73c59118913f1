/**
 * Scenario 2, start-up: from process start to the first complete members table of the big
 * pool in ctpool's console, against `kubectl get pods -l corral.dev/vdi-ct-pool=<pool>`
 * finishing. Both run in a terminal of the same size; one unmeasured warm-up run of each
 * first (disk caches, kubectl's discovery cache).
 */

import { POOL_LABEL } from '../../source/pool/names.js';
import { startPty, terminalEnv } from '../../test/support/terminal.js';
import { startConsole } from '../console-process.js';
import { type BenchContext, profileArgs, type ScenarioResult } from '../context.js';
import { DESK, deskPool } from '../desk-pool.js';
import { kubectlArgs, kubectlEnv } from '../kubectl.js';
import { readyPods } from '../pool-setup.js';
import { cpuMs, peakRssMb } from '../proc-stats.js';
import { spread } from '../stats.js';

/** One round's figures. */
interface StartupRound {
	ctpoolMs: number;
	/** CPU ctpool used until the table was complete (ms). */
	ctpoolCpuMs: number | null;
	ctpoolPeakRssMb: number | null;
	ctpoolBytes: number;
	kubectlMs: number | null;
	kubectlLines: number | null;
	/** `kubectl get pods,pvc,leases -l`: the same facts the console shows. */
	kubectlAllMs: number | null;
	kubectlAllLines: number | null;
}

/** How many member rows fit under the column titles of a terminal this tall. */
export function rowsToCheck(ctx: BenchContext): number {
	return Math.min(ctx.opts.members, Math.max(1, ctx.opts.rows - 10));
}

async function ctpoolOnce(ctx: BenchContext, ready: number) {
	const run = startConsole(
		ctx,
		{ pool: DESK.pool, observed: ctx.opts.members, ready, rows: rowsToCheck(ctx) },
		{ nodeArgs: profileArgs(ctx, 'startup') },
	);
	try {
		const at = await run.complete;
		const cpu = cpuMs(run.pty.pid);
		const rss = peakRssMb(run.pty.pid);
		return { ms: at - run.pty.startedAt, cpu, rss, bytes: run.pty.bytes() };
	} finally {
		run.detachScreen();
		await run.pty.stop();
	}
}

/** The kinds of each kubectl baseline: the pods alone, and the three kinds a table is made of. */
const KUBECTL_PODS = 'pods';
const KUBECTL_ALL = 'pods,pvc,leases';

async function kubectlOnce(ctx: BenchContext, kinds: string) {
	const k = ctx.kubectl!;
	const pty = startPty(
		k.bin,
		kubectlArgs(k, ['get', kinds, '-l', `${POOL_LABEL}=${DESK.pool}`, '-n', DESK.namespace]),
		{ columns: ctx.opts.columns, rows: ctx.opts.rows, env: kubectlEnv(k), cwd: ctx.root },
	);
	let text = '';
	pty.onChunk((d) => {
		text += d;
	});
	let lastAt = pty.startedAt;
	pty.onChunk((_d, at) => {
		lastAt = at;
	});
	const code = await pty.exited;
	const ended = performance.timeOrigin + performance.now();
	if (code !== 0) throw new Error(`kubectl get ${kinds} failed (${code}): ${text.slice(0, 500)}`);
	// pod lines: `desk-1 ...` for pods alone, `pod/desk-1 ...` when several kinds are listed
	const lines = text
		.split('\n')
		.filter((l) => l.startsWith(`${DESK.pool}-`) || l.startsWith(`pod/${DESK.pool}-`)).length;
	// the exit is seen a little after the last byte; the exit time is what a person waits for
	return { ms: Math.max(ended, lastAt) - pty.startedAt, lines };
}

/** The longest a demo may take to show its live table before the round fails (ms). */
const DEMO_TIMEOUT_MS = 60_000;

/**
 * `npm start` as a newcomer runs it (the build current, as after `npm install`): the demo on
 * its own simulated cluster, timed from spawn to its first frame (the console's header) and
 * to its live table (● live with the first member's row), then quit with q.
 */
async function npmStartOnce(ctx: BenchContext): Promise<{ firstMs: number; liveMs: number }> {
	const pty = startPty('npm', ['start'], {
		columns: ctx.opts.columns,
		rows: ctx.opts.rows,
		env: terminalEnv(),
		cwd: ctx.root,
	});
	let text = '';
	let first: number | null = null;
	try {
		const live = await new Promise<number>((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error(`npm start showed no live table in ${DEMO_TIMEOUT_MS} ms`)),
				DEMO_TIMEOUT_MS,
			);
			pty.onChunk((data, at) => {
				text += data.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ' ');
				if (first === null && /ctpool\s+pool desk/.test(text)) first = at;
				if (first !== null && text.includes('● live') && /\bdesk-1\b/.test(text)) {
					clearTimeout(timer);
					resolve(at);
				}
			});
			void pty.exited.then((code) =>
				reject(new Error(`npm start exited (${code}) before its live table`)),
			);
		});
		return { firstMs: (first ?? live) - pty.startedAt, liveMs: live - pty.startedAt };
	} finally {
		pty.write('q');
		const quit = setTimeout(() => void pty.stop(), 10_000);
		await pty.exited;
		clearTimeout(quit);
	}
}

/** Runs the start-up scenario. */
export async function startupScenario(ctx: BenchContext): Promise<ScenarioResult> {
	await deskPool(ctx);
	const notes: string[] = [];
	const ready = await readyPods(ctx.sim.api, DESK.namespace, DESK.pool);
	ctx.log('start-up: warm-up run of each');
	await ctpoolOnce(ctx, ready);
	if (ctx.kubectl) {
		await kubectlOnce(ctx, KUBECTL_PODS);
		await kubectlOnce(ctx, KUBECTL_ALL);
	} else notes.push('kubectl is not on the PATH: the start-up baseline was skipped');
	const rounds: StartupRound[] = [];
	for (let r = 1; r <= ctx.opts.startupRounds; r++) {
		const c = await ctpoolOnce(ctx, ready);
		const k = ctx.kubectl ? await kubectlOnce(ctx, KUBECTL_PODS) : null;
		const all = ctx.kubectl ? await kubectlOnce(ctx, KUBECTL_ALL) : null;
		for (const [kinds, run] of [
			[KUBECTL_PODS, k],
			[KUBECTL_ALL, all],
		] as const)
			if (run && run.lines !== ctx.opts.members)
				notes.push(
					`round ${r}: kubectl get ${kinds} printed ${run.lines} pod lines, not ${ctx.opts.members}`,
				);
		rounds.push({
			ctpoolMs: c.ms,
			ctpoolCpuMs: c.cpu,
			ctpoolPeakRssMb: c.rss,
			ctpoolBytes: c.bytes,
			kubectlMs: k?.ms ?? null,
			kubectlLines: k?.lines ?? null,
			kubectlAllMs: all?.ms ?? null,
			kubectlAllLines: all?.lines ?? null,
		});
		ctx.log(
			`start-up round ${r}: ctpool ${c.ms.toFixed(0)} ms, kubectl ${k && all ? `${k.ms.toFixed(0)} ms (${KUBECTL_ALL}: ${all.ms.toFixed(0)} ms)` : 'skipped'}`,
		);
	}
	// npm start to the demo's first frame (its own cluster: the bench's is not involved)
	await npmStartOnce(ctx);
	const demo: { firstMs: number; liveMs: number }[] = [];
	for (let r = 1; r <= ctx.opts.startupRounds; r++) {
		const d = await npmStartOnce(ctx);
		demo.push(d);
		ctx.log(
			`npm start round ${r}: first frame ${d.firstMs.toFixed(0)} ms, live table ${d.liveMs.toFixed(0)} ms`,
		);
	}
	const demoFirst = spread(demo.map((d) => d.firstMs));
	const ct = spread(rounds.map((r) => r.ctpoolMs));
	const kc = ctx.kubectl ? spread(rounds.map((r) => r.kubectlMs ?? Number.NaN)) : undefined;
	const kcAll = ctx.kubectl ? spread(rounds.map((r) => r.kubectlAllMs ?? Number.NaN)) : undefined;
	const metric = `first complete table (${ctx.opts.members} members)`;
	return {
		rows: [
			{
				scenario: 'startup',
				metric,
				unit: 'ms',
				ctpool: ct,
				...(kc
					? {
							baseline: kc,
							baselineName: `kubectl get ${KUBECTL_PODS} -l`,
							target: { text: '<= 3 x kubectl', met: ct.median <= 3 * kc.median },
						}
					: {}),
			},
			{
				scenario: 'startup',
				metric,
				unit: 'ms',
				ctpool: ct,
				...(kcAll
					? {
							baseline: kcAll,
							baselineName: `kubectl get ${KUBECTL_ALL} -l`,
							// issue 27: no slower than kubectl reading the same three lists
							target: { text: '<= 1.0 x kubectl', met: ct.median <= kcAll.median },
						}
					: {}),
			},
			{
				scenario: 'startup',
				metric: 'CPU until the table is complete',
				unit: 'ms',
				ctpool: spread(rounds.map((r) => r.ctpoolCpuMs ?? Number.NaN)),
			},
			{
				scenario: 'startup',
				metric: "npm start to the demo's first frame",
				unit: 'ms',
				ctpool: demoFirst,
				target: { text: '<= 2000 ms', met: demoFirst.median <= 2000 },
			},
			{
				scenario: 'startup',
				metric: "npm start to the demo's live table",
				unit: 'ms',
				ctpool: spread(demo.map((d) => d.liveMs)),
			},
		],
		detail: { ready, rounds, demo },
		notes,
	};
}
