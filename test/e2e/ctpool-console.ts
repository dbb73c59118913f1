import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type Kube, loadKube } from '../../source/kube/config.js';
import type { StartSimOptions } from '../../source/sim/index.js';
import { CLI, requireBuild } from '../support/built-cli.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { startTerminal, type TestTerminal, terminalEnv } from '../support/terminal.js';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Options of a ctpool run in a terminal. */
export interface CtpoolRun {
	args: string[];
	kubeconfig?: string;
	/** kubectl's discovery cache dir. */
	cacheDir?: string;
	columns?: number;
	rows?: number;
	env?: NodeJS.ProcessEnv;
}

/** Runs `node dist/cli.js ARGS` in a terminal. */
export function startCtpool(run: CtpoolRun): TestTerminal {
	requireBuild();
	const env = terminalEnv({
		...(run.cacheDir ? { KUBECACHEDIR: run.cacheDir } : {}),
		...run.env,
	});
	return startTerminal(
		process.execPath,
		[CLI, ...run.args, ...(run.kubeconfig ? ['--kubeconfig', run.kubeconfig] : [])],
		{ columns: run.columns ?? 100, rows: run.rows ?? 30, env, cwd: ROOT },
	);
}

/** Quits with q and waits for the exit code. */
export async function quit(t: TestTerminal): Promise<number> {
	t.write('q');
	return t.exited;
}

/** The cluster and terminals of a file of console tests (see consoleTests). */
export interface ConsoleTests {
	readonly sim: TestSim;
	/** A Kube on the cluster, in its default namespace. */
	readonly kube: Kube;
	/** Runs ctpool in a terminal against the cluster (its kubeconfig unless run names one); disposed after the test. */
	start(run: CtpoolRun): TestTerminal;
}

/**
 * The set-up of a file of console tests: checks the build and starts a simulated cluster
 * before them, disposes each test's terminal after it, and closes the cluster after them
 * all. Read `.sim` and `.kube` inside tests, not at collection time.
 */
export function consoleTests(opts: StartSimOptions = {}): ConsoleTests {
	let sim: TestSim | undefined;
	let kube: Kube | undefined;
	const open: TestTerminal[] = [];
	beforeAll(async () => {
		requireBuild();
		sim = await startTestSim(opts);
		kube = await loadKube({ kubeconfig: sim.kubeconfigPath });
	});
	afterEach(() => {
		for (const t of open.splice(0)) t.dispose();
	});
	afterAll(async () => {
		await sim?.cleanup();
	});
	const need = <T>(v: T | undefined): T => {
		if (v === undefined)
			throw new Error('consoleTests: the cluster is not started yet (use it inside a test)');
		return v;
	};
	return {
		get sim() {
			return need(sim);
		},
		get kube() {
			return need(kube);
		},
		start(run) {
			const t = startCtpool({ kubeconfig: need(sim).kubeconfigPath, ...run });
			open.push(t);
			return t;
		},
	};
}
