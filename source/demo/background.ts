/**
 * The demo pool without the console: defines pool desk on a simulated cluster, keeps it
 * reconciled, and lets the demo users claim and release, for `ctpool sim --demo`, so that a
 * console or kubectl in another terminal has a lively pool to watch.
 */

import { Controller, StepsFailed } from '../controller/controller.js';
import { createEngine, type EngineEvent } from '../engine/index.js';
import { loadKube } from '../kube/config.js';
import { describeError } from '../kube/errors.js';
import { isTerminalPoolError } from '../pool/errors.js';
import type { SimCluster } from '../sim/index.js';
import { sanitize } from '../text/sanitize.js';
import { startDemoActors } from './actors.js';
import { demoSpec } from './run.js';

/** Options of the background demo. */
export interface BackgroundDemoOptions {
	pool?: string;
	size?: number;
	/** Reconcile interval (ms). */
	intervalMs?: number;
	/** Where one line per finished step goes. */
	log(line: string): void;
}

/** The running background demo. */
export interface BackgroundDemo {
	/** Stops the actors and the reconcile loop, and waits for them. */
	stop(): Promise<void>;
}

/** One log line for an engine event: `12:00:01 alice@example.com claim desk-3: message`. */
export function eventLine(e: EngineEvent): string {
	const time = new Date(e.time).toISOString().slice(11, 19);
	const mark = e.outcome === 'error' ? ' ERROR' : '';
	return sanitize(
		`${time}${mark} ${e.actor} ${e.action}${e.member ? ` ${e.member}` : ''}: ${e.message}`,
	);
}

/** Applies the demo pool and starts the demo users and a reconcile loop. */
export async function startBackgroundDemo(
	cluster: SimCluster,
	opts: BackgroundDemoOptions,
): Promise<BackgroundDemo> {
	const pool = opts.pool ?? 'desk';
	const kube = await loadKube({ kubeconfig: cluster.kubeconfigPath, namespace: cluster.namespace });
	const emit = (e: EngineEvent) => {
		if (e.outcome === 'ok' || e.outcome === 'error') opts.log(eventLine(e));
	};
	const admin = createEngine(kube, { actor: 'demo-admin', emit });
	await admin.apply(pool, demoSpec(opts.size ?? 6));
	const actors = startDemoActors({ engine: admin, pool, controllers: cluster.controllers, emit });
	// The pool was just reconciled by apply: the controller's first pass is one interval away.
	const controller = new Controller({
		resyncMs: opts.intervalMs ?? 10_000,
		workers: 1,
		isTerminal: isTerminalPoolError,
		async reconcile() {
			const result = await admin.reconcile(pool);
			return { failed: result.errors.length > 0 };
		},
		onDone(_key, d) {
			if (d.kind !== 'ok' && !(d.kind === 'retry' && d.error instanceof StepsFailed))
				opts.log(`reconcile ${pool}: ${describeError(d.error)}`);
		},
	});
	controller.notifyAfter(pool, opts.intervalMs ?? 10_000);
	return {
		async stop() {
			await actors.stop();
			await controller.stop();
		},
	};
}
