/**
 * What every operation of the console works with: the store, the one engine of the console's
 * connection, and the shared ways to run a user action (the spinner, the status line, the
 * log) and to reach a pool's namespace.
 */

import type { ClaimFeed, Engine, EngineContext, EngineEvent } from '../../../engine/index.js';
import type { TraceSink } from '../../../engine/reconcile-plan.js';
import { describeError } from '../../../kube/errors.js';
import { poolNamespace, splitPoolKey } from '../../model/pool-index.js';
import { authWord } from '../../model/staleness.js';
import type { ConsoleStore } from '../../store/store.js';

/** Where a user action acts, for its log line when it fails. */
export interface ActWhere {
	pool: string;
	member?: string;
	action: string;
}

/** The shared context of the console's operations. */
export interface OpsContext {
	store: ConsoleStore;
	/** One engine for the console's connection: its operations and its loop share its caches. */
	engine: Engine;
	/** The console's namespace; a pool keyed `namespace/pool` (-A) is acted on in its own. */
	namespace: string;
	/** Who acts. */
	actor: string;
	/** Aborted when the console closes. */
	signal: AbortSignal;
	/** The user action in flight (act sets it), for settle. */
	running: Promise<void> | null;
	/** A pool's claim feed from the console's watch, when the console has one. */
	claimFeed?: ((namespace: string, pool: string) => ClaimFeed) | undefined;
}

/** A new context over an engine. */
export function opsContext(
	store: ConsoleStore,
	engine: Engine,
	namespace: string,
	actor: string,
	signal: AbortSignal,
	claimFeed?: (namespace: string, pool: string) => ClaimFeed,
): OpsContext {
	return { store, engine, namespace, actor, signal, running: null, claimFeed };
}

/** The trace sink of a pool's reconciles: each event goes to the pool's last plan in the store. */
export function traceInto(ops: OpsContext, key: string): TraceSink {
	return (e) => ops.store.getState().traceEvent(key, e);
}

/** An engine context in the namespace of the open pool (the console's without one). */
export function openPoolContext(ops: OpsContext): EngineContext {
	const open = ops.store.getState().pool;
	return open
		? ops.engine.context({ namespace: poolNamespace(open, ops.namespace) })
		: ops.engine.ctx;
}

/** A context in the pool's namespace whose events go to the log, remembering whether one was an error. */
function poolContext(ops: OpsContext, key: string) {
	const seen = { error: false };
	const ctx = ops.engine.context({
		namespace: poolNamespace(key, ops.namespace),
		emit: (e: EngineEvent) => {
			if (e.outcome === 'error') seen.error = true;
			ops.store.getState().logEvent(e);
		},
		onTrace: traceInto(ops, key),
	});
	return { ctx, seen };
}

/** Shows refused credentials (401/403) in the header. */
export function noteAuth(ops: OpsContext, message: string): void {
	if (authWord(message)) ops.store.getState().setAuthProblem(message);
}

/** Logs an operation's failure as the console's own line. */
export function logFailure(
	ops: OpsContext,
	where: ActWhere & { pool: string },
	message: string,
): void {
	ops.store.getState().logEvent({
		time: Date.now(),
		actor: ops.actor,
		pool: where.pool,
		...(where.member ? { member: where.member } : {}),
		action: where.action,
		outcome: 'error',
		message,
	});
}

/** Runs a user action with the spinner; its outcome goes to the status line and the log. */
export function act(
	ops: OpsContext,
	label: string,
	where: ActWhere,
	fn: (ctx: EngineContext, progress: (m: string) => void) => Promise<string>,
): void {
	const { store } = ops;
	const s = store.getState();
	if (s.busy) {
		s.setStatus(`wait: ${s.busy.label} is running`, 'error');
		return;
	}
	s.setBusy({ label });
	const { ctx, seen } = poolContext(ops, where.pool);
	ops.running = (async () => {
		try {
			const message = inPool(where.pool, await fn(ctx, (m) => store.getState().setBusyDetail(m)));
			store.getState().setStatus(message, 'ok');
			store.getState().setAuthProblem(null);
		} catch (err) {
			const message = inPool(where.pool, describeError(err));
			noteAuth(ops, message);
			store.getState().setStatus(message, 'error');
			if (!seen.error) logFailure(ops, where, message);
		} finally {
			store.getState().setBusy(null);
		}
	})();
}

/**
 * A message about a pool, led by its key when that names the namespace (-A: `desk` alone may
 * be two pools) and the message does not name it already.
 */
function inPool(key: string, message: string): string {
	return splitPoolKey(key).namespace === null || message.includes(key)
		? message
		: `${key}: ${message}`;
}

/** `n things`, with the plural when n is not 1. */
export function plural(n: number, thing: string): string {
	return `${n} ${thing}${n === 1 ? '' : 's'}`;
}
