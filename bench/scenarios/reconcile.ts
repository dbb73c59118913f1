/**
 * Scenario 3, reconcile from empty: `ctpool apply` of a new pool (the definition, then one
 * reconcile creating every member under its Lease), against `kubectl create -f` of a
 * manifest holding the same PVCs and pods; each in its own namespace, each timed from spawn
 * to exit. Then, once every pod is Ready, two more `ctpool reconcile` runs: the first records
 * the settled status, the second is the no-op whose requests and writes are counted from the
 * simulated cluster's audit log.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, profileArgs, type ScenarioResult } from '../context.js';
import { runKubectl, type TimedRun, timedRun } from '../kubectl.js';
import {
	applyArgs,
	BENCH_SOURCE,
	ensureNamespace,
	manifestText,
	memberObjects,
	waitPodsReady,
} from '../pool-setup.js';
import type { ClientActivity } from '../sim-control.js';
import { spread } from '../stats.js';

const POOL = 'rc';

/** One round's figures. */
interface ReconcileRound {
	applyMs: number;
	applyRequests: number;
	applyWrites: number;
	kubectlMs: number | null;
	kubectlRequests: number | null;
	settleMs: number;
	settleRequests: number;
	settleWrites: number;
	noopMs: number;
	noopRequests: number;
	noopWrites: number;
	noopByVerb: Record<string, number>;
	noopWritesByKind: Record<string, number>;
}

function none(): ClientActivity {
	return { requests: 0, byVerb: {}, writes: 0, unchangedWrites: 0, writesByKind: {} };
}

/** Runs a ctpool command and reads what it did from the audit log. */
async function ctpoolCommand(
	ctx: BenchContext,
	args: string[],
): Promise<{ run: TimedRun; activity: ClientActivity }> {
	const mark = await ctx.sim.mark();
	const run = await timedRun(
		process.execPath,
		[...profileArgs(ctx, 'reconcile'), ctx.cli, ...args, '--kubeconfig', ctx.sim.kubeconfig],
		{ cwd: ctx.root },
	);
	const activity = (await ctx.sim.since(mark)).ctpool ?? none();
	if (run.code !== 0)
		throw new Error(
			`ctpool ${args.join(' ')} failed (${run.code}): ${run.stderr.slice(0, 800)}${run.stdout.slice(0, 800)}`,
		);
	return { run, activity };
}

async function kubectlCreate(ctx: BenchContext, namespace: string, round: number) {
	const n = ctx.opts.reconcileMembers;
	const manifest = join(ctx.tmp, `reconcile-${round}.json`);
	const items = memberObjects(POOL, namespace, 1, n);
	await writeFile(manifest, manifestText(items));
	const mark = await ctx.sim.mark();
	const run = await runKubectl(ctx.kubectl!, ['create', '-f', manifest, '-n', namespace]);
	const activity = (await ctx.sim.since(mark)).kubectl ?? none();
	if (run.code !== 0)
		throw new Error(`kubectl create -f failed (${run.code}): ${run.stderr.slice(0, 800)}`);
	const created = run.stdout.split('\n').filter((l) => l.endsWith(' created')).length;
	if (created !== 2 * n)
		throw new Error(`kubectl create -f made ${created} objects, not ${2 * n}: ${run.stderr}`);
	return { run, activity };
}

/** Runs the reconcile-from-empty scenario. */
export async function reconcileScenario(ctx: BenchContext): Promise<ScenarioResult> {
	const n = ctx.opts.reconcileMembers;
	const notes: string[] = [];
	if (!ctx.kubectl)
		notes.push('kubectl is not on the PATH: the kubectl create baseline was skipped');
	const rounds: ReconcileRound[] = [];
	// warm-up: each program once on a tiny pool (disk cache; kubectl's discovery and OpenAPI cache)
	await ensureNamespace(ctx.sim.api, 'bench-rc-warm');
	await ctpoolCommand(ctx, applyArgs(POOL, 'bench-rc-warm', 1));
	if (ctx.kubectl) {
		const warm = join(ctx.tmp, 'reconcile-warm.json');
		await writeFile(warm, manifestText(memberObjects('kw', 'bench-rc-warm', 1, 1)));
		const w = await runKubectl(ctx.kubectl, ['create', '-f', warm, '-n', 'bench-rc-warm']);
		if (w.code !== 0)
			throw new Error(`kubectl create -f (warm-up) failed: ${w.stderr.slice(0, 500)}`);
	}
	for (let r = 1; r <= ctx.opts.rounds; r++) {
		const nsCtpool = `bench-rc${r}-ctpool`;
		const nsKubectl = `bench-rc${r}-kubectl`;
		await ensureNamespace(ctx.sim.api, nsCtpool);
		await ensureNamespace(ctx.sim.api, nsKubectl);
		const doCtpool = async () => {
			const a = await ctpoolCommand(ctx, applyArgs(POOL, nsCtpool, n));
			await waitPodsReady(ctx.sim.api, nsCtpool, POOL, n, 180_000);
			return a;
		};
		const doKubectl = async () => {
			if (!ctx.kubectl) return null;
			const k = await kubectlCreate(ctx, nsKubectl, r);
			await waitPodsReady(ctx.sim.api, nsKubectl, POOL, n, 180_000);
			return k;
		};
		// alternate who goes first, so neither always runs in the other's aftermath
		let apply: Awaited<ReturnType<typeof doCtpool>>;
		let kc: Awaited<ReturnType<typeof doKubectl>>;
		if (r % 2 === 1) {
			apply = await doCtpool();
			kc = await doKubectl();
		} else {
			kc = await doKubectl();
			apply = await doCtpool();
		}
		const settle = await ctpoolCommand(ctx, ['reconcile', POOL, '-n', nsCtpool]);
		const noop = await ctpoolCommand(ctx, ['reconcile', POOL, '-n', nsCtpool]);
		rounds.push({
			applyMs: apply.run.ms,
			applyRequests: apply.activity.requests,
			applyWrites: apply.activity.writes,
			kubectlMs: kc?.run.ms ?? null,
			kubectlRequests: kc?.activity.requests ?? null,
			settleMs: settle.run.ms,
			settleRequests: settle.activity.requests,
			settleWrites: settle.activity.writes,
			noopMs: noop.run.ms,
			noopRequests: noop.activity.requests,
			noopWrites: noop.activity.writes,
			noopByVerb: noop.activity.byVerb,
			noopWritesByKind: noop.activity.writesByKind,
		});
		ctx.log(
			`reconcile round ${r}: ctpool apply ${apply.run.ms.toFixed(0)} ms (${apply.activity.requests} requests), kubectl create ${kc ? `${kc.run.ms.toFixed(0)} ms (${kc.activity.requests} requests)` : 'skipped'}; no-op reconcile ${noop.activity.requests} requests, ${noop.activity.writes} writes`,
		);
	}
	const apply = spread(rounds.map((r) => r.applyMs));
	const kc = ctx.kubectl ? spread(rounds.map((r) => r.kubectlMs ?? Number.NaN)) : undefined;
	const noopWrites = spread(rounds.map((r) => r.noopWrites));
	const noopRequests = spread(rounds.map((r) => r.noopRequests));
	return {
		rows: [
			{
				scenario: 'reconcile',
				metric: `from empty (${n} members, ${2 * n} objects)`,
				unit: 'ms',
				ctpool: apply,
				...(kc
					? {
							baseline: kc,
							baselineName: 'kubectl create -f',
							target: { text: '<= 0.25 x kubectl', met: apply.median <= 0.25 * kc.median },
						}
					: {}),
			},
			{
				scenario: 'reconcile',
				metric: 'requests from empty',
				unit: 'count',
				ctpool: spread(rounds.map((r) => r.applyRequests)),
				...(kc
					? {
							baseline: spread(rounds.map((r) => r.kubectlRequests ?? Number.NaN)),
							baselineName: 'kubectl create -f',
						}
					: {}),
			},
			{
				scenario: 'reconcile',
				metric: 'no-op reconcile writes',
				unit: 'count',
				ctpool: noopWrites,
				target: { text: '= 0', met: noopWrites.max === 0 },
			},
			{
				scenario: 'reconcile',
				metric: 'no-op reconcile requests',
				unit: 'count',
				ctpool: noopRequests,
				target: { text: '<= 5', met: noopRequests.max <= 5 },
			},
			{
				scenario: 'reconcile',
				metric: 'no-op reconcile time',
				unit: 'ms',
				ctpool: spread(rounds.map((r) => r.noopMs)),
			},
		],
		detail: { source: BENCH_SOURCE, rounds },
		notes,
	};
}
