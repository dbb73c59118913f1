/**
 * `npm run bench`: starts the simulated cluster as its own process, runs each scenario
 * (ctpool and its baseline against the same cluster in the same run), prints the table and
 * writes the figures to bench/results/<timestamp>.json and bench/results/latest.json.
 */

import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { wallMs } from './clock.js';
import {
	type BenchContext,
	type BenchOptions,
	type ResultRow,
	SCENARIOS,
	type ScenarioName,
	type ScenarioResult,
} from './context.js';
import { type CpuHog, startCpuHog } from './cpu-hog.js';
import { deskPool } from './desk-pool.js';
import { kubectlPath, kubectlVersion } from './kubectl.js';
import { startRealCluster } from './real-cluster.js';
import { markdownTable, textTable } from './report.js';
import { claimsScenario } from './scenarios/claims.js';
import { failoverScenario } from './scenarios/failover.js';
import { liveScenario } from './scenarios/live.js';
import { reconcileScenario } from './scenarios/reconcile.js';
import { scaleScenario, scaleSetup } from './scenarios/scale.js';
import { startupScenario } from './scenarios/startup.js';
import { type SimHandle, startSimProcess } from './sim-process.js';

const HELP = `Usage: npm run bench -- [flags]

Runs ctpool's benchmarks against a simulated cluster (its own process) and writes the
figures to bench/results/<timestamp>.json and bench/results/latest.json.

Flags (defaults in brackets)
  --scenario LIST          comma list of ${SCENARIOS.join(', ')} [all]
  --cluster sim|real       the simulated cluster, or a real control plane built from the
                           Kubernetes modules (npm run real; needs Go) [sim]; real results go
                           to latest-real.json
  --rounds N               rounds of each scenario; figures are median [min-max] [3]
  --startup-rounds N       rounds of the start-up scenario, a few seconds each and the most
                           variable figures [7; with --rounds alone, that number]
  --members N              members of the live-view and start-up pool [2000]
  --churn N                changes per second of the churn generator [200]
  --seconds N              seconds of churn per round [20]
  --visible N              members on screen whose Lease holder changes [20]
  --visible-share F        share of the churn that changes a member on screen [0.1]
  --reconcile-members N    members of the reconcile-from-empty pool [500]
  --claims N               concurrent claims, and the claims pool's size [200]
  --releases N             concurrent releases after the claims [50]
  --scale-pools N          pools of the scale scenario [20]
  --scale-members N        members of each of them [500]
  --scale-namespaces N     namespaces they are dealt over (console across namespaces) [4]
  --hog                    a loaded machine: one busy process per core through every scenario
                           (after the start-up and scale pools are made)
  --columns N --rows N     terminal size of the console [120x40]
  --time-scale F           controller delay scale of the simulated cluster [1]
  --cli FILE               the ctpool entry to measure [dist/cli.js]
  --out-dir DIR            where results go [bench/results]
  --profile DIR            run every ctpool process with node --cpu-prof, profiles in DIR/<scenario>
  --help
`;

/** The defaults of the benchmark's options. */
export const DEFAULTS: BenchOptions = {
	scenarios: [...SCENARIOS],
	cluster: 'sim',
	members: 2000,
	rounds: 3,
	startupRounds: 7,
	churn: 200,
	seconds: 20,
	visible: 20,
	visibleShare: 0.1,
	reconcileMembers: 500,
	claims: 200,
	releases: 50,
	scalePools: 20,
	scaleMembers: 500,
	scaleNamespaces: 4,
	hog: false,
	columns: 120,
	rows: 40,
	timeScale: 1,
};

/** The repository root: the nearest directory above `from` with ctpool's package.json. */
export function repoRoot(from: string): string {
	let dir = from;
	for (;;) {
		const pkg = join(dir, 'package.json');
		if (existsSync(pkg)) {
			try {
				if (JSON.parse(readFileSync(pkg, 'utf8')).name === 'ctpool') return dir;
			} catch {
				// keep looking
			}
		}
		const up = dirname(dir);
		if (up === dir) throw new Error(`no ctpool package.json above ${from}`);
		dir = up;
	}
}

/** Parsed command line: the options, and where the CLI and results are. */
export interface BenchArgs {
	opts: BenchOptions;
	cli?: string;
	outDir?: string;
	help: boolean;
}

function positiveInt(name: string, v: string | undefined, dflt: number, min = 1): number {
	if (v === undefined) return dflt;
	const n = Number(v);
	if (!Number.isInteger(n) || n < min)
		throw new Error(`--${name} must be a whole number >= ${min}, got ${v}`);
	return n;
}

/** Parses the benchmark's flags (throws a readable Error on a bad one). */
export function parseBenchArgs(argv: string[]): BenchArgs {
	const { values } = parseArgs({
		args: argv,
		strict: true,
		options: {
			scenario: { type: 'string' },
			scenarios: { type: 'string' },
			cluster: { type: 'string' },
			rounds: { type: 'string' },
			'startup-rounds': { type: 'string' },
			members: { type: 'string' },
			churn: { type: 'string' },
			seconds: { type: 'string' },
			visible: { type: 'string' },
			'visible-share': { type: 'string' },
			'reconcile-members': { type: 'string' },
			claims: { type: 'string' },
			releases: { type: 'string' },
			'scale-pools': { type: 'string' },
			'scale-members': { type: 'string' },
			'scale-namespaces': { type: 'string' },
			hog: { type: 'boolean' },
			columns: { type: 'string' },
			rows: { type: 'string' },
			'time-scale': { type: 'string' },
			cli: { type: 'string' },
			'out-dir': { type: 'string' },
			profile: { type: 'string' },
			help: { type: 'boolean' },
		},
	});
	const list = values.scenario ?? values.scenarios;
	const scenarios = list
		? list
				.split(',')
				.map((s) => s.trim())
				.filter(Boolean)
		: [...DEFAULTS.scenarios];
	for (const s of scenarios)
		if (!(SCENARIOS as readonly string[]).includes(s))
			throw new Error(`unknown scenario ${s}; the scenarios are ${SCENARIOS.join(', ')}`);
	const share =
		values['visible-share'] === undefined ? DEFAULTS.visibleShare : Number(values['visible-share']);
	if (!(share > 0 && share <= 1)) throw new Error('--visible-share must be in (0, 1]');
	const timeScale =
		values['time-scale'] === undefined ? DEFAULTS.timeScale : Number(values['time-scale']);
	if (!(timeScale > 0)) throw new Error('--time-scale must be > 0');
	const cluster = values.cluster ?? DEFAULTS.cluster;
	if (cluster !== 'sim' && cluster !== 'real')
		throw new Error(`--cluster must be sim or real, got ${cluster}`);
	const opts: BenchOptions = {
		scenarios: SCENARIOS.filter((s) => scenarios.includes(s)) as ScenarioName[],
		cluster,
		rounds: positiveInt('rounds', values.rounds, DEFAULTS.rounds),
		startupRounds: positiveInt(
			'startup-rounds',
			values['startup-rounds'] ?? values.rounds,
			DEFAULTS.startupRounds,
		),
		members: positiveInt('members', values.members, DEFAULTS.members),
		churn: positiveInt('churn', values.churn, DEFAULTS.churn),
		seconds: positiveInt('seconds', values.seconds, DEFAULTS.seconds),
		visible: positiveInt('visible', values.visible, DEFAULTS.visible),
		visibleShare: share,
		reconcileMembers: positiveInt(
			'reconcile-members',
			values['reconcile-members'],
			DEFAULTS.reconcileMembers,
		),
		claims: positiveInt('claims', values.claims, DEFAULTS.claims),
		releases: positiveInt('releases', values.releases, DEFAULTS.releases, 0),
		scalePools: positiveInt('scale-pools', values['scale-pools'], DEFAULTS.scalePools, 2),
		scaleMembers: positiveInt('scale-members', values['scale-members'], DEFAULTS.scaleMembers),
		scaleNamespaces: positiveInt(
			'scale-namespaces',
			values['scale-namespaces'],
			DEFAULTS.scaleNamespaces,
		),
		hog: values.hog === true,
		columns: positiveInt('columns', values.columns, DEFAULTS.columns, 80),
		rows: positiveInt('rows', values.rows, DEFAULTS.rows, 24),
		timeScale,
	};
	if (values.profile) opts.profileDir = resolve(values.profile);
	if (opts.releases > opts.claims) throw new Error('--releases must not exceed --claims');
	if (opts.scenarios.includes('live') && opts.members <= opts.rows)
		throw new Error(
			`--members must exceed --rows (${opts.rows}) for the live view: the churn changes members below the screen`,
		);
	if (opts.scenarios.includes('scale') && opts.scaleMembers <= opts.rows)
		throw new Error(
			`--scale-members must exceed --rows (${opts.rows}): the churn changes members below the screen`,
		);
	if (opts.scenarios.includes('scale') && opts.scalePools > opts.rows - 6)
		throw new Error(
			`--scale-pools ${opts.scalePools} do not fit the pools screen of ${opts.rows} rows`,
		);
	if (opts.visible > opts.rows - 10)
		throw new Error(`--visible ${opts.visible} members do not fit a terminal of ${opts.rows} rows`);
	const out: BenchArgs = { opts, help: values.help === true };
	if (values.cli) out.cli = values.cli;
	if (values['out-dir']) out.outDir = values['out-dir'];
	return out;
}

/** The results file. */
export interface BenchResults {
	startedAt: string;
	durationSeconds: number;
	machine: {
		cpus: number;
		cpuModel: string;
		memoryGb: number;
		node: string;
		kubectl: string | null;
		/** 1-minute load average at the start and at the end (other work on the machine skews figures). */
		loadAverage: { start: number; end: number };
		/** The 1, 5 and 15-minute load averages at the start (as `uptime` prints them). */
		loadAverages: number[];
		/** Busy processes the bench itself ran (--hog), 0 on a quiet run. */
		hogProcesses: number;
	};
	options: BenchOptions;
	rows: ResultRow[];
	scenarios: Partial<Record<ScenarioName, ScenarioResult | { error: string }>>;
	notes: string[];
	/** Every target with a verdict, met or not. */
	targetsMet: boolean;
}

const RUNNERS: Record<ScenarioName, (ctx: BenchContext) => Promise<ScenarioResult>> = {
	startup: startupScenario,
	live: liveScenario,
	reconcile: reconcileScenario,
	claims: claimsScenario,
	scale: scaleScenario,
	failover: failoverScenario,
};

/** Runs the benchmark; resolves with the results and the exit code. */
export async function runBench(args: BenchArgs): Promise<{ code: number; results: BenchResults }> {
	const t0 = wallMs();
	const startedAt = new Date().toISOString();
	const loadsAtStart = loadavg().map((l) => Math.round(l * 100) / 100);
	const loadAtStart = loadsAtStart[0] ?? 0;
	const benchDir = dirname(fileURLToPath(import.meta.url));
	const root = repoRoot(benchDir);
	const cli = resolve(args.cli ?? join(root, 'dist', 'cli.js'));
	if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
	const outDir = resolve(args.outDir ?? join(root, 'bench', 'results'));
	const tmp = await mkdtemp(join(tmpdir(), 'ctpool-bench-'));
	const log = (m: string) =>
		process.stderr.write(`[bench +${((wallMs() - t0) / 1000).toFixed(0)}s] ${m}\n`);
	const bin = kubectlPath();
	const kver = bin ? kubectlVersion(bin) : null;
	const notes: string[] = [];
	if (!bin || !kver)
		notes.push('kubectl is not on the PATH (or does not run): every baseline is skipped');
	const real = args.opts.cluster === 'real';
	const clusterName = real ? 'real control plane' : 'simulated cluster';
	log(
		`starting the ${clusterName} (${args.opts.scenarios.join(', ')}; ${args.opts.rounds} rounds)`,
	);
	if (real)
		notes.push(
			'cluster: the real control plane (kube-apiserver, etcd, controller-manager, scheduler from the Kubernetes v1.36.3 modules; 10 kwok nodes)',
		);
	let clusters = 0;
	const startCluster = () =>
		real
			? startRealCluster(root, tmp)
			: startSimProcess(join(benchDir, 'sim-child.js'), {
					nodes: 10,
					// room for the start-up pool, the scale pools (10,000 members) and the rest
					nodeCpu: '3000',
					nodeMemory: '4000Gi',
					timeScale: args.opts.timeScale,
					historySize: 100_000,
					kubeconfigPath: join(tmp, `kubeconfig-${++clusters}`),
				});
	const contextOn = (sim: SimHandle): BenchContext => ({
		opts: args.opts,
		sim,
		root,
		cli,
		benchDir,
		kubectl:
			bin && kver ? { bin, kubeconfig: sim.kubeconfig, cacheDir: join(tmp, 'kube-cache') } : null,
		tmp,
		log,
	});
	let sim = await startCluster();
	let ctx = contextOn(sim);
	const scenarios: BenchResults['scenarios'] = {};
	const rows: ResultRow[] = [];
	let failed = false;
	let hog: CpuHog | null = null;
	try {
		if (args.opts.hog) {
			// the big pools are made on a quiet machine; the load is for the measured rounds
			if (args.opts.scenarios.includes('startup') || args.opts.scenarios.includes('live'))
				await deskPool(ctx);
			if (args.opts.scenarios[0] === 'scale') await scaleSetup(ctx);
			hog = startCpuHog();
			log(`a CPU hog runs on every core (${hog.processes} busy processes)`);
			notes.push(
				`loaded machine: ${hog.processes} busy processes (one per core) ran through every scenario`,
			);
		}
		for (const [i, name] of args.opts.scenarios.entries()) {
			if (name === 'scale' && i > 0) {
				// The scale console watches every namespace: on the cluster the other scenarios
				// filled (about 5,600 more members) it would measure theirs too. It gets its own.
				log(`a fresh ${clusterName} for the scale scenario`);
				await sim.stop();
				sim = await startCluster();
				ctx = contextOn(sim);
				if (hog) {
					// its pools are made on a quiet machine too
					hog.stop();
					await scaleSetup(ctx);
					hog = startCpuHog();
				}
			}
			log(`scenario ${name}`);
			try {
				const result = await RUNNERS[name](ctx);
				scenarios[name] = result;
				rows.push(...result.rows);
				for (const n of result.notes) notes.push(`${name}: ${n}`);
			} catch (err) {
				failed = true;
				const message = (err as Error).stack ?? String(err);
				scenarios[name] = { error: message };
				notes.push(`${name}: FAILED: ${(err as Error).message}`);
				log(`scenario ${name} failed: ${message}`);
			}
		}
	} finally {
		hog?.stop();
		await sim.stop();
		await rm(tmp, { recursive: true, force: true });
	}
	const judged = rows.filter((r) => r.target);
	const results: BenchResults = {
		startedAt,
		durationSeconds: (wallMs() - t0) / 1000,
		machine: {
			cpus: cpus().length,
			cpuModel: cpus()[0]?.model ?? 'unknown',
			memoryGb: Math.round(totalmem() / 2 ** 30),
			node: process.version,
			kubectl: kver,
			loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
			loadAverages: loadsAtStart,
			hogProcesses: hog?.processes ?? 0,
		},
		options: args.opts,
		rows,
		scenarios,
		notes,
		targetsMet: judged.every((r) => r.target?.met),
	};
	await mkdir(outDir, { recursive: true });
	const stamp = startedAt.replace(/[:.]/g, '-');
	const json = `${JSON.stringify(results, null, '\t')}\n`;
	const latest = real ? 'latest-real.json' : 'latest.json';
	const file = `${stamp}${real ? '-real' : ''}.json`;
	await writeFile(join(outDir, file), json);
	await writeFile(join(outDir, latest), json);
	process.stdout.write(`\n${textTable(rows)}\n\n`);
	if (notes.length > 0)
		process.stdout.write(`Notes:\n${notes.map((n) => `- ${n}`).join('\n')}\n\n`);
	process.stdout.write(
		`load average ${results.machine.loadAverage.start.toFixed(2)} at the start, ${results.machine.loadAverage.end.toFixed(2)} at the end (${results.machine.cpus} CPUs)\n`,
	);
	process.stdout.write(
		`${judged.filter((r) => r.target?.met).length}/${judged.length} targets met; ${results.durationSeconds.toFixed(0)} s; results in ${join(outDir, file)} and ${latest}\n`,
	);
	if (process.env.BENCH_MARKDOWN === '1') process.stdout.write(`\n${markdownTable(rows)}\n`);
	return { code: failed ? 1 : 0, results };
}

const isEntry =
	process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) {
	let args: BenchArgs;
	try {
		args = parseBenchArgs(process.argv.slice(2));
	} catch (err) {
		process.stderr.write(`bench: ${(err as Error).message}\n\n${HELP}`);
		process.exit(2);
	}
	if (args.help) {
		process.stdout.write(HELP);
		process.exit(0);
	}
	const { code } = await runBench(args);
	process.exit(code);
}
