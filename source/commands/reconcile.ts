/** ctpool reconcile: bring a pool (or every pool) in line with its definition, once or as a watching controller. */

import type { Disposition } from '../controller/controller.js';
import { type Engine, engineOf } from '../engine/engine.js';
import type { ReconcileResult } from '../engine/reconcile.js';
import type { ConnectionState } from '../kube/connection-state.js';
import { describeError } from '../kube/errors.js';
import { sanitize } from '../text/sanitize.js';
import { runCommand, stringFlag } from './command.js';
import { reconcileCommand } from './command-specs.js';
import { EXIT_FAILED, EXIT_OK, report, usageError } from './failure.js';
import { type CommandIo, println } from './io.js';
import { type LeaderSettings, parseLeaderFlags } from './reconcile-leader.js';
import { type FollowOptions, followRollout, printReconcile } from './reconcile-output.js';
import { type TraceFormat, traceSink } from './reconcile-trace.js';
import { connect, type Session } from './session.js';
import { checkArgs, checkPoolArg, parseDuration } from './values.js';

/** How long watch mode gathers watch events before it reconciles (ms). */
export const WATCH_DEBOUNCE_MS = 1000;

/** Runs `ctpool reconcile`. */
export function runReconcile(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(reconcileCommand, argv, io, async (args) => {
		const all = args.flags.all === true;
		const allNamespaces = args.flags.allNamespaces === true;
		const watch = args.flags.watch === true;
		const intervalText = stringFlag(args, 'interval');
		const metricsText = stringFlag(args, 'metricsAddr');
		if (all) checkArgs('reconcile', args.input, []);
		else {
			if (allNamespaces) throw usageError('reconcile', '-A/--all-namespaces only goes with --all');
			checkArgs('reconcile', args.input, ['pool']);
			checkPoolArg('reconcile', args.input[0]!);
		}
		if (intervalText !== undefined && !watch)
			throw usageError('reconcile', '--interval only goes with --watch');
		if (metricsText !== undefined && !watch)
			throw usageError('reconcile', '--metrics-addr only goes with --watch');
		if (args.flags.wait !== undefined && watch)
			throw usageError(
				'reconcile',
				'--no-wait only goes with a one-shot reconcile (--watch goes on with every wave anyway)',
			);
		const trace = traceFlags(args, watch);
		const intervalMs = parseDuration('reconcile', 'interval', intervalText ?? '30s');
		const leader = parseLeaderFlags(args, watch);
		const { parseListenAddress } = await import('../controller/metrics-server.js');
		const metricsAddr =
			metricsText !== undefined ? parseListenAddress('metrics-addr', metricsText) : undefined;
		const session = await connect(args.flags, io, {
			withSignal: watch,
			// across namespaces the rights differ per namespace: each pool's answer says
			...(allNamespaces ? {} : { check: watch ? ('watch' as const) : ('reconcile' as const) }),
		});
		const namespace = allNamespaces ? null : session.ctx.namespace;
		if (!watch) {
			const follow = {
				noWait: args.flags.wait === false,
				...(io.signal ? { signal: io.signal } : {}),
			};
			if (all) return reconcileAllOnce(session, namespace, io, follow, trace);
			const engine = traced(session.engine, io, trace);
			const result = await engine.reconcile(args.input[0]!, { dryRun: trace.dryRun });
			const out = resultIo(io, trace);
			printReconcile(out, result);
			if (trace.dryRun) return result.errors.length > 0 ? EXIT_FAILED : EXIT_OK;
			return followRollout(engine.ctx, out, result, follow);
		}
		return watchPools(
			session,
			{ namespace, pool: all ? undefined : args.input[0]!, intervalMs, metricsAddr, leader },
			io,
		);
	});
}

function stamp(): string {
	return `${new Date().toISOString().slice(11, 19)} `;
}

/**
 * Whether watch mode prints a pass: one that acted, wrote the status, or failed otherwise than
 * the pool's pass before (a pool failing the same way is retried many times: told once).
 */
function worthPrinting(result: ReconcileResult, lastErrors: string | undefined): boolean {
	if (result.actions.length > 0 || result.statusWritten) return true;
	return result.errors.length > 0 && result.errors.join('\n') !== lastErrors;
}

/** A retry delay as the log says it: `5 ms`, `2 s`. */
function retryText(ms: number): string {
	return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${Math.round(ms / 1000)} s`;
}

/** The prefix naming a pool's namespace when pools of several namespaces are reconciled. */
function where(namespace: string | null, key: string): string {
	return namespace === null ? `${sanitize(key.slice(0, key.indexOf('/')))}: ` : '';
}

/** What -v/--plan, --dry-run and -o ask of a one-shot reconcile. */
interface TraceChoice {
	/** Print the story (plan, steps): -v, --plan, --dry-run or -o json. */
	on: boolean;
	dryRun: boolean;
	format: TraceFormat;
}

/** Reads -v/--plan, --dry-run and -o: each goes with a one-shot reconcile only. */
function traceFlags(
	args: Parameters<Parameters<typeof runCommand>[3]>[0],
	watch: boolean,
): TraceChoice {
	const dryRun = args.flags.dryRun === true;
	const output = stringFlag(args, 'output');
	if (output !== undefined && output !== 'text' && output !== 'json')
		throw usageError(
			'reconcile',
			`-o ${JSON.stringify(sanitize(output).slice(0, 20))} is not an output format; use text or json`,
		);
	const format: TraceFormat = output === 'json' ? 'json' : 'text';
	const on =
		dryRun || output !== undefined || args.flags.verbose === true || args.flags.plan === true;
	if (on && watch)
		throw usageError(
			'reconcile',
			'-v/--plan, --dry-run and -o only go with a one-shot reconcile (drop --watch; the controller counts its plans in its metrics)',
		);
	if (dryRun && args.flags.wait !== undefined)
		throw usageError(
			'reconcile',
			'--no-wait does not go with --dry-run (a dry run waits for nothing)',
		);
	return { on, dryRun, format };
}

/** The engine whose reconciles print their story as they go (when asked). */
function traced(engine: Engine, io: CommandIo, trace: TraceChoice, prefix = ''): Engine {
	if (!trace.on) return engine;
	return engineOf(
		engine.context({ onTrace: traceSink(io, trace.format, engine.ctx.namespace, prefix) }),
	);
}

/** Where the result lines go: with -o json, stdout carries the JSON lines only. */
function resultIo(io: CommandIo, trace: TraceChoice): CommandIo {
	if (!trace.on || trace.format !== 'json') return io;
	return { ...io, stdout: { write: () => true, isTTY: false } };
}

/** One pass over every pool: exit 1 when any pool failed. */
async function reconcileAllOnce(
	session: Session,
	namespace: string | null,
	io: CommandIo,
	follow: FollowOptions,
	trace: TraceChoice,
): Promise<number> {
	const { listPoolRefs } = await import('../engine/list-definitions.js');
	const refs = await listPoolRefs(session.kube, namespace);
	if (refs.length === 0) {
		println(
			io.stderr,
			`ctpool: no pools ${namespace === null ? 'in any namespace' : `in namespace ${namespace}`}; define one with ctpool apply`,
		);
		return EXIT_OK;
	}
	let failed = 0;
	for (const ref of refs) {
		const prefix = namespace === null ? `${sanitize(ref.namespace)}: ` : '';
		try {
			const engine = traced(session.engine.inNamespace(ref.namespace), io, trace, prefix);
			const result = await engine.reconcile(ref.pool, { dryRun: trace.dryRun });
			const out = resultIo(io, trace);
			printReconcile(out, result, prefix);
			if (trace.dryRun) {
				if (result.errors.length > 0) failed++;
			} else if ((await followRollout(engine.ctx, out, result, { ...follow, prefix })) !== EXIT_OK)
				failed++;
		} catch (err) {
			failed++;
			println(io.stderr, `ctpool: ${prefix}${describeError(err)}`);
		}
	}
	if (failed > 0)
		println(
			io.stderr,
			`ctpool: ${failed} of ${refs.length} pool${refs.length === 1 ? '' : 's'} failed`,
		);
	return failed > 0 ? EXIT_FAILED : EXIT_OK;
}

interface WatchScope {
	/** null = every namespace. */
	namespace: string | null;
	/** One pool; undefined = every pool. */
	pool: string | undefined;
	intervalMs: number;
	metricsAddr: { host: string; port: number } | undefined;
	/** Leader election, or null to reconcile alone. */
	leader: LeaderSettings | null;
}

/**
 * Watch mode: one controller over the pool (or every pool), fed by the watch, until the
 * signal aborts (exit 0). Failures are printed and retried; a terminal one is printed once.
 */
async function watchPools(session: Session, scope: WatchScope, io: CommandIo): Promise<number> {
	const [
		{ startPoolController },
		{ startMetricsServer },
		{ setHandlerErrorSink, keepRunningOnUncaughtErrors },
	] = await Promise.all([
		import('../controller/pool-controller.js'),
		import('../controller/metrics-server.js'),
		import('../kube/handler-errors.js'),
	]);
	// an object a watch handler chokes on is told in one line, and the process goes on; so is
	// any error nothing handled (a timer's, a promise's): a reconciler outlives bad input
	setHandlerErrorSink((line) => println(io.stderr, line));
	keepRunningOnUncaughtErrors(true);
	const signal = io.signal;
	const { namespace } = scope;
	const what =
		scope.pool !== undefined
			? `pool ${scope.pool}`
			: namespace === null
				? 'every pool in every namespace'
				: `every pool in namespace ${namespace}`;
	let lastPhase: ConnectionState['phase'] | null = null;
	/** The errors of each pool's last pass (a repeat is not printed again). */
	const lastErrors = new Map<string, string>();
	const pools = startPoolController({
		kube: session.kube,
		namespace,
		...(scope.pool !== undefined ? { pool: scope.pool } : {}),
		resyncMs: scope.intervalMs,
		settleMs: WATCH_DEBOUNCE_MS,
		engine: session.engine,
		onReconciled(key, result) {
			if (worthPrinting(result, lastErrors.get(key)))
				printReconcile(io, result, `${stamp()}${where(namespace, key)}`);
			lastErrors.set(key, result.errors.join('\n'));
		},
		onFailed(key, d: Exclude<Disposition, { kind: 'ok' }>) {
			const text = `${where(namespace, key)}${describeError(d.error)}`;
			if (d.kind === 'terminal')
				println(io.stderr, `ctpool: ${text} (not retried until the definition changes)`);
			else println(io.stderr, `ctpool: ${text} (retry in ${retryText(d.retryInMs)})`);
		},
		onPools(added, removed) {
			for (const key of added)
				println(io.stderr, `ctpool: pool ${sanitize(key)} found; reconciling it`);
			for (const key of removed) {
				lastErrors.delete(key);
				println(io.stderr, `ctpool: pool ${sanitize(key)} was deleted; no longer reconciled`);
			}
		},
		countRefusals: scope.metricsAddr !== undefined,
		standby: scope.leader !== null,
		onRefusalsUnreadable(reason) {
			println(
				io.stderr,
				`ctpool: cannot read ctpool's Events (${sanitize(reason)}); ctpool_claims_refused_total stays absent (grant events list and watch to count refused claims)`,
			);
		},
		onConnection(overall) {
			if (overall.phase === lastPhase) return;
			lastPhase = overall.phase;
			if (overall.phase === 'failed')
				println(
					io.stderr,
					`ctpool: watch of ${what} failed (${sanitize(overall.reason)}); still reconciling every interval`,
				);
			else if (overall.phase === 'reconnecting')
				println(io.stderr, `ctpool: watch of ${what} reconnecting: ${sanitize(overall.lastError)}`);
		},
	});
	let metrics: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
	let elector: { stop(): Promise<void> } | undefined;
	try {
		if (scope.metricsAddr) {
			try {
				metrics = await startMetricsServer(
					scope.metricsAddr,
					pools.metrics.registry,
					pools.notReady,
				);
			} catch (err) {
				const code = (err as NodeJS.ErrnoException).code ?? String(err);
				println(
					io.stderr,
					`ctpool: cannot listen on ${scope.metricsAddr.host}:${scope.metricsAddr.port} for --metrics-addr (${sanitize(code)}); pick another address`,
				);
				return EXIT_FAILED;
			}
			println(
				io.stderr,
				`ctpool: metrics on ${metrics.url}/metrics (health ${metrics.url}/healthz, readiness ${metrics.url}/readyz)`,
			);
		}
		println(
			io.stderr,
			`ctpool: reconciling ${what} every ${Math.round(scope.intervalMs / 1000)} s and on changes; Ctrl-C stops`,
		);
		if (scope.leader) {
			const { electLeader } = await import('./reconcile-leader.js');
			elector = await electLeader(scope.leader, session.kube, session.ctx.namespace, pools, io);
		}
		await new Promise<void>((resolve) => {
			if (!signal || signal.aborted) return resolve();
			signal.addEventListener('abort', () => resolve(), { once: true });
		});
	} catch (err) {
		return report(io, err);
	} finally {
		keepRunningOnUncaughtErrors(false);
		await pools.stop();
		// no more writes of this process: a leader now hands the Lease on
		await elector?.stop();
		await metrics?.close();
	}
	return EXIT_OK;
}
