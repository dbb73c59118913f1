/**
 * runDemo: the console on an embedded simulated cluster. It starts the cluster in-process,
 * writes its kubeconfig (so a second terminal can watch with kubectl), applies the demo pool
 * through the engine, connects through the kubeconfig exactly like to a real cluster, and
 * runs the console with the live reconcile loop on and demo users claiming and releasing.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEngine } from '../engine/index.js';
import { loadKube } from '../kube/config.js';
import { describeError } from '../kube/errors.js';
import { defaultNamespace, type PoolSpec } from '../pool/index.js';
import { startSimCluster } from '../sim/index.js';
import { runConsoleSession } from '../tui/session/run.js';
import { type DemoPace, startDemoActors } from './actors.js';
import { NARRATE_INTERVAL_MS, startNarration } from './narrated.js';

/** Options of runDemo (the CLI's contract, plus knobs for tests and the screenshot). */
export interface DemoOptions {
	/** Where to write the demo cluster's kubeconfig (default: a temp file, removed at the end). */
	kubeconfigOut?: string;
	/** The demo pool's name (default desk). */
	pool?: string;
	/** The demo pool's size (default 6). */
	size?: number;
	noColor?: boolean;
	/** Watch every namespace (-A). */
	allNamespaces?: boolean;
	/** Ring the bell when a pool becomes exhausted (--bell). */
	bell?: boolean;
	/** Seed of the demo users' choices. */
	seed?: number;
	/** The demo users' pace. */
	pace?: Partial<DemoPace>;
	/** Run without demo users (the pool alone). */
	quiet?: boolean;
	/** The namespace of the demo pool, created in the cluster (default: $CORRAL_NAMESPACE, else corral-vms). */
	namespace?: string;
	/**
	 * Narrate (--narrate): instead of random users and the console's loop, the script of
	 * narrated.ts (a release, a drift rollout, a scale-down, a takeover), told one sentence
	 * at a time through a pacer.
	 */
	narrate?: boolean;
	/** With narrate: between two sentences (ms; default NARRATE_INTERVAL_MS). */
	narrateIntervalMs?: number;
}

/** The demo pool's definition. */
export function demoSpec(size: number): PoolSpec {
	return {
		image: 'ghcr.io/example/desktop:1',
		cpu: '1',
		memory: '2Gi',
		disk: '5Gi',
		storageClass: '',
		privileged: false,
		init: false,
		mode: 'ephemeral',
		size,
	};
}

/** Runs the demo; resolves with the exit code once the user quits. */
export async function runDemo(opts: DemoOptions = {}): Promise<number> {
	const pool = opts.pool ?? 'desk';
	const size = opts.size ?? 6;
	if (!process.stdin.isTTY || !process.stdout.isTTY) {
		process.stderr.write('ctpool --demo needs a terminal (stdin and stdout must be a TTY)\n');
		return 2;
	}
	const tempDir = opts.kubeconfigOut ? null : await mkdtemp(join(tmpdir(), 'ctpool-demo-'));
	const kubeconfigPath = opts.kubeconfigOut
		? resolve(opts.kubeconfigOut)
		: join(tempDir ?? tmpdir(), 'kubeconfig');
	let cluster: Awaited<ReturnType<typeof startSimCluster>> | null = null;
	try {
		const namespace = opts.namespace ?? defaultNamespace(process.env);
		cluster = await startSimCluster({
			kubeconfigPath,
			namespace,
			config: { containerStartMs: 1500 },
		});
		const kube = await loadKube({ kubeconfig: kubeconfigPath, namespace });
		const admin = createEngine(kube, { actor: 'demo-admin' });
		const spec = demoSpec(size);
		await admin.apply(pool, spec);
		const sim = cluster;
		const narrate = opts.narrate === true;
		const intervalMs = opts.narrateIntervalMs ?? NARRATE_INTERVAL_MS;
		return await runConsoleSession({
			kube,
			pool,
			kubeconfig: kubeconfigPath,
			noColor: opts.noColor ?? false,
			allNamespaces: opts.allNamespaces ?? false,
			bell: opts.bell ?? false,
			identity: 'admin@example.com',
			// narrated: the script runs the reconciles, one told pass at a time
			loop: !narrate,
			loopIntervalMs: 10_000,
			note: `${narrate ? `narrated demo (a sentence every ${Math.round(intervalMs / 1000)} s: Space pauses, n tells the next)` : 'demo cluster'} · kubeconfig ${kubeconfigPath} · watch it: kubectl --kubeconfig ${kubeconfigPath} get pods -w -n ${kube.namespace}`,
			// narrated: the console shows the sentences in a pane beside the table and drives
			// the pacer (Space: pause or resume, n: the next sentence)
			...(narrate
				? {
						narration: {
							start: ({ changed, failed }) => {
								const narration = startNarration({
									engine: admin,
									pool,
									spec,
									intervalMs,
									onChange: changed,
									onError: (err) => failed(`the narrated demo stopped: ${describeError(err)}`),
								});
								return { control: narration.pacer, stop: () => narration.stop() };
							},
						},
					}
				: {}),
			onStart(store) {
				if (narrate || opts.quiet) return undefined;
				const actors = startDemoActors({
					engine: admin,
					pool,
					controllers: sim.controllers,
					emit: (e) => store.getState().logEvent(e),
					...(opts.seed !== undefined ? { seed: opts.seed } : {}),
					...(opts.pace ? { pace: opts.pace } : {}),
				});
				return () => actors.stop();
			},
		});
	} catch (err) {
		process.stderr.write(`ctpool --demo: ${describeError(err)}\n`);
		return 1;
	} finally {
		await cluster?.close();
		if (tempDir) await rm(tempDir, { recursive: true, force: true });
	}
}
