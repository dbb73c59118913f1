/** The reconcile operation (once, from a key) and one pass of the live reconcile loop. */

import { type EngineContext, type EngineEvent, reconcile } from '../../../engine/index.js';
import { describeError } from '../../../kube/errors.js';
import { poolName, poolNamespace } from '../../model/pool-index.js';
import { authWord } from '../../model/staleness.js';
import { act, logFailure, noteAuth, type OpsContext, traceInto } from './context.js';

/** Reconciles the pool once; its outcome goes to the status line. */
export function reconcileOp(ops: OpsContext, key: string): void {
	act(ops, `reconciling ${key}`, { pool: key, action: 'reconcile' }, (ctx) =>
		reconcileWith(ctx, poolName(key)),
	);
}

async function reconcileWith(ctx: EngineContext, pool: string): Promise<string> {
	const result = await reconcile(ctx, pool);
	const steps = result.actions.map((a) => `${a.step} ${a.member}${a.ok ? '' : ' (failed)'}`);
	const did = steps.length > 0 ? steps.join(', ') : 'nothing to do';
	if (result.errors.length > 0)
		throw new Error(
			`reconcile ${pool}: ${result.errors.length} failed: ${result.errors.join('; ')}`,
		);
	return `reconciled ${pool}: ${did}`;
}

/**
 * One pass of the live loop over a pool. A pass that changes nothing stays out of the log:
 * its pass-level events are held back until a step (or an error) shows the pass did
 * something, then go in live. A failure is logged and thrown (the loop retries it with
 * backoff, or not at all for a broken definition).
 */
export async function reconcilePass(ops: OpsContext, key: string): Promise<{ failed: boolean }> {
	const { store } = ops;
	let held: EngineEvent[] = [];
	let live = false;
	let sawError = false;
	const flush = () => {
		live = true;
		for (const e of held) store.getState().logEvent(e);
		held = [];
	};
	const ctx = ops.engine.context({
		namespace: poolNamespace(key, ops.namespace),
		emit: (e: EngineEvent) => {
			if (e.outcome === 'error') sawError = true;
			if (live) store.getState().logEvent(e);
			else {
				held.push(e);
				if (e.action !== 'reconcile' || e.outcome === 'error') flush();
			}
		},
		onTrace: traceInto(ops, key),
	});
	try {
		const result = await reconcile(ctx, poolName(key));
		if (result.actions.length > 0 || result.errors.length > 0) flush();
		const refused = result.errors.find((e) => authWord(e) !== null);
		store.getState().setAuthProblem(refused ?? null);
		return { failed: result.errors.length > 0 };
	} catch (err) {
		flush();
		const message = describeError(err);
		noteAuth(ops, message);
		if (!sawError) logFailure(ops, { pool: key, action: 'reconcile' }, message);
		throw err;
	}
}
