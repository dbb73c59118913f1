/** ctpool reconcile: bring a pool in line with its definition, once or as a watching controller. */

import type { ReconcileResult } from '../engine/reconcile.js';
import type { ConnectionState } from '../kube/connection-state.js';
import type { WatchChange } from '../kube/pool-watch.js';
import { sanitize } from '../text/sanitize.js';
import { type CommandSpec, runCommand, stringFlag } from './command.js';
import { EXIT_FAILED, EXIT_OK, report, usageError } from './failure.js';
import { GLOBAL_HELP } from './flags.js';
import { type CommandIo, println } from './io.js';
import { printReconcile } from './reconcile-output.js';
import { connect, type Session } from './session.js';
import { checkArgs, checkPoolArg, parseDuration } from './values.js';

/** How long watch mode gathers watch events before it reconciles (ms). */
export const WATCH_DEBOUNCE_MS = 1000;

/** The reconcile command. */
export const reconcileCommand: CommandSpec = {
	name: 'reconcile',
	summary: 'create, start, replace and delete members to match the definition',
	mutates: true,
	flags: {
		watch: { type: 'boolean' },
		interval: { type: 'string' },
	},
	help: `
Usage: ctpool reconcile <pool> [--watch] [--interval 30s]

Bring the pool in line with its definition: create missing members, start stopped ones,
replace unclaimed members that drifted or failed, delete unclaimed members above the size,
and record the status. A claimed member is never destroyed. Safe to run at any time, and
from two places at once.

Flags
  --watch           keep reconciling: every interval, and soon after a change in the pool;
                    failed steps are retried; Ctrl-C stops (exit 0)
  --interval D      time between two reconciles in watch mode (default 30s)

${GLOBAL_HELP}
`,
};

/** Runs `ctpool reconcile`. */
export function runReconcile(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(reconcileCommand, argv, io, async (args) => {
		checkArgs('reconcile', args.input, ['pool']);
		const pool = args.input[0]!;
		checkPoolArg('reconcile', pool);
		const intervalText = stringFlag(args, 'interval');
		const watch = args.flags.watch === true;
		if (intervalText !== undefined && !watch)
			throw usageError('reconcile', '--interval only goes with --watch');
		const intervalMs = parseDuration('reconcile', 'interval', intervalText ?? '30s');
		const session = await connect(args.flags, io, { withSignal: watch });
		if (!watch) {
			const result = await session.engine.reconcile(session.ctx, pool);
			printReconcile(io, result);
			return result.errors.length > 0 ? EXIT_FAILED : EXIT_OK;
		}
		return watchLoop(session, pool, intervalMs, io);
	});
}

function stamp(): string {
	return `${new Date().toISOString().slice(11, 19)} `;
}

function worthPrinting(result: ReconcileResult): boolean {
	return result.actions.length > 0 || result.errors.length > 0 || result.statusWritten;
}

function sleepUntil(
	ms: number,
	wake: { fn: (() => void) | null },
	signal?: AbortSignal,
): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			clearTimeout(timer);
			signal?.removeEventListener('abort', done);
			wake.fn = null;
			resolve();
		};
		// setTimeout fires at once past 2^31-1 ms; never sleep longer than that.
		const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
		wake.fn = done;
		signal?.addEventListener('abort', done, { once: true });
		if (signal?.aborted) done();
	});
}

/**
 * Whether a watched change may call for a reconcile. A definition change that only rewrote
 * the recorded status (every reconcile's own write) is not one; everything else is.
 */
function relevant(change: WatchChange, specSeen: Map<string, string>): boolean {
	if (change.kind !== 'configmaps' || change.op === 'delete') return true;
	if (change.op === 'reset') {
		for (const o of change.objects)
			specSeen.set(
				o.metadata.name ?? '',
				(o.data as Record<string, string> | undefined)?.spec ?? '',
			);
		return true;
	}
	const name = change.object.metadata.name ?? '';
	const spec = (change.object.data as Record<string, string> | undefined)?.spec ?? '';
	const before = specSeen.get(name);
	specSeen.set(name, spec);
	return before !== spec;
}

/**
 * Watch mode: reconcile, then wait for the interval or a change in the pool (debounced),
 * and again, until the signal aborts (exit 0). Failures are printed and retried.
 */
async function watchLoop(
	session: Session,
	pool: string,
	intervalMs: number,
	io: CommandIo,
): Promise<number> {
	const { startPoolWatch } = await import('../kube/pool-watch.js');
	const signal = io.signal;
	const wake: { fn: (() => void) | null } = { fn: null };
	let dirty = false;
	let debounce: NodeJS.Timeout | null = null;
	let lastPhase: ConnectionState['phase'] | null = null;
	const specSeen = new Map<string, string>();
	const watch = startPoolWatch(
		session.kube,
		{ namespace: session.ctx.namespace, pool },
		{
			onBatch(changes) {
				if (!changes.some((ch) => relevant(ch, specSeen)) || debounce) return;
				debounce = setTimeout(() => {
					debounce = null;
					dirty = true;
					wake.fn?.();
				}, WATCH_DEBOUNCE_MS);
			},
			onConnection(overall) {
				if (overall.phase === lastPhase) return;
				lastPhase = overall.phase;
				if (overall.phase === 'failed')
					println(
						io.stderr,
						`ctpool: watch of pool ${pool} failed (${sanitize(overall.reason)}); still reconciling every interval`,
					);
				else if (overall.phase === 'reconnecting')
					println(
						io.stderr,
						`ctpool: watch of pool ${pool} reconnecting: ${sanitize(overall.lastError)}`,
					);
			},
		},
	);
	println(
		io.stderr,
		`ctpool: reconciling pool ${pool} every ${Math.round(intervalMs / 1000)} s and on changes; Ctrl-C stops`,
	);
	try {
		while (!signal?.aborted) {
			dirty = false;
			try {
				const result = await session.engine.reconcile(session.ctx, pool);
				if (worthPrinting(result)) printReconcile(io, result, stamp());
			} catch (err) {
				if (signal?.aborted) break;
				report(io, err);
			}
			if (signal?.aborted) break;
			if (!dirty) await sleepUntil(intervalMs, wake, signal);
		}
	} finally {
		watch.stop();
		if (debounce) clearTimeout(debounce);
	}
	return EXIT_OK;
}
