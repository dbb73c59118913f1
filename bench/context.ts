/** What every scenario gets (the cluster, the programs, the options) and what it gives back (rows). */

import type { KubectlTarget } from './kubectl.js';
import type { SimHandle } from './sim-process.js';
import type { Spread } from './stats.js';

/** The benchmark's options (each a flag of bench/run.ts). */
export interface BenchOptions {
	scenarios: ScenarioName[];
	/** The cluster: the simulated one (its own process) or the real control plane (realcluster/). */
	cluster: 'sim' | 'real';
	/** Members of the live-view and start-up pool. */
	members: number;
	rounds: number;
	/** Rounds of the start-up scenario (cheap, and its figures vary most). */
	startupRounds: number;
	/** Changes per second of the churn generator. */
	churn: number;
	/** Seconds of churn per round. */
	seconds: number;
	/** Members on screen whose Lease holder the churn changes. */
	visible: number;
	/** Share of the churn that changes a member on screen. */
	visibleShare: number;
	/** Members of the reconcile-from-empty pool. */
	reconcileMembers: number;
	/** Concurrent claims (and the size of the claims pool). */
	claims: number;
	/** Concurrent releases after the claims. */
	releases: number;
	/** Terminal size of the console. */
	columns: number;
	rows: number;
	/** Controller delay scale of the simulated cluster. */
	timeScale: number;
	/** Pools of the scale scenario. */
	scalePools: number;
	/** Members of each pool of the scale scenario. */
	scaleMembers: number;
	/** Namespaces the scale scenario's pools are dealt over (when the console watches across them). */
	scaleNamespaces: number;
	/** Run one busy process per core through every scenario (a loaded machine). */
	hog: boolean;
	/** When set, every ctpool process runs with --cpu-prof into <dir>/<scenario>. */
	profileDir?: string;
}

/** The scenarios, in the order they run. */
export const SCENARIOS = ['startup', 'live', 'reconcile', 'claims', 'scale', 'failover'] as const;

/** A scenario's name. */
export type ScenarioName = (typeof SCENARIOS)[number];

/** Everything a scenario runs with. */
export interface BenchContext {
	opts: BenchOptions;
	sim: SimHandle;
	/** The repository root (the programs run there). */
	root: string;
	/** The ctpool CLI entry (dist/cli.js). */
	cli: string;
	/** The compiled bench directory (child entries live there). */
	benchDir: string;
	/** kubectl, or null when it is missing (baselines are then skipped and said so). */
	kubectl: KubectlTarget | null;
	/** A scratch directory for manifests and profiles. */
	tmp: string;
	log(message: string): void;
}

/** Node flags for a ctpool process of a scenario: --cpu-prof into the profile dir when asked. */
export function profileArgs(ctx: BenchContext, scenario: ScenarioName): string[] {
	const dir = ctx.opts.profileDir;
	return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}/${scenario}`] : [];
}

/** A target and whether the figure meets it. */
export interface TargetCheck {
	text: string;
	met: boolean;
}

/** One line of the results table. */
export interface ResultRow {
	scenario: ScenarioName;
	metric: string;
	unit: string;
	ctpool: Spread;
	baseline?: Spread;
	/** What the baseline is (kubectl get -w, kubectl create -f, raw API). */
	baselineName?: string;
	target?: TargetCheck;
}

/** What a scenario gives back: table rows and its raw figures per round. */
export interface ScenarioResult {
	rows: ResultRow[];
	/** Raw per-round figures for the JSON file. */
	detail: unknown;
	/** Notes for the report (skipped baselines, product limits met on the way). */
	notes: string[];
}
