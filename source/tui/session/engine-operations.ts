/** The console's operations over the engine: each runs in the background and reports into the store. */

import {
	actingIdentity,
	claim,
	createEngine,
	type EngineContext,
	type EngineContextOptions,
	type EngineEvent,
	memberEvents,
	memberLog,
	readLastLogLines,
	readNodeRooms,
	reconcile,
	release,
	releaseExpired,
	setMaintenance,
} from '../../engine/index.js';
import type { TraceSink } from '../../engine/reconcile-plan.js';
import type { Kube } from '../../kube/config.js';
import { describeError } from '../../kube/errors.js';
import { failureKind } from '../../pool/index.js';
import { sanitize } from '../../text/sanitize.js';
import { boundedString } from '../model/bounded-object.js';
import { HINT_LOG_LINES, type HintFacts } from '../model/member-hint.js';
import { poolName, poolNamespace, splitPoolKey } from '../model/pool-index.js';
import { authWord } from '../model/staleness.js';
import {
	type BulkAction,
	bulkVerb,
	type ConsoleStore,
	type PodLogView,
	selectedRow,
} from '../store/store.js';
import { betweenLine, containerOf, hasPreviousContainer, nextContainer } from './log-follow.js';
import type { ConsoleOperations } from './operations.js';
import { createReconcileLoop, type ReconcileLoop } from './reconcile-loop.js';

/** Who the console acts as when no --identity is given: the CLI's rule (CTPOOL_IDENTITY, else user@host). */
export function defaultActor(): string {
	return actingIdentity(undefined, process.env);
}

/** Options of the engine-backed operations. */
export interface EngineOperationsOptions {
	store: ConsoleStore;
	kube: Kube;
	/** The console's namespace; a pool keyed `namespace/pool` (-A) is acted on in its own. */
	namespace: string;
	/** Who acts (log, Kubernetes Events, and the releasing identity of a forced release). */
	actor: string;
	/** Overrides of the engine's settings (tests shorten the delete wait). */
	engine?: EngineContextOptions;
	loopIntervalMs?: number;
}

/** The operations, plus the loop they drive and a way to stop everything. */
export interface EngineOperations extends ConsoleOperations {
	loop: ReconcileLoop;
	/** Stops the loop and aborts the waits of running operations. */
	close(): void;
	/**
	 * Resolves once the user operation in flight has ended (at once when none runs), or after
	 * at most timeoutMs: an abandoned operation hands its member back before ctpool exits.
	 */
	settle(timeoutMs: number): Promise<void>;
}

/** Creates the console's operations over the engine. */
export function createEngineOperations(opts: EngineOperationsOptions): EngineOperations {
	const { store, kube, namespace, actor } = opts;
	const abort = new AbortController();
	// One engine for the console's connection: its operations and its loop share its caches.
	const engine = createEngine(kube, {
		namespace,
		actor,
		signal: abort.signal,
		...opts.engine,
	});

	/** What the facts of the hint on the details screen were read for (member, state and failure). */
	let hintLoadedFor: { member: string; key: string } | null = null;
	const hintKey = (row: { state: string; message: string }) =>
		`${row.state}:${row.state === 'Failed' ? failureKind(row.message) : ''}`;
	// the member on the details screen changed state (or another member is shown): read again
	const unwatchDetails = store.subscribe((s) => {
		if (s.screen !== 'details') return;
		const row = selectedRow(s);
		if (!row || (hintLoadedFor?.member === row.name && hintLoadedFor.key === hintKey(row))) return;
		loadHintFacts(row.name);
	});

	/**
	 * Reads what the hint of the member needs (its state decides): the nodes' room for an
	 * Unschedulable member, the last log lines of a crashing one. A read that fails is kept as
	 * the reason the hint cannot show it.
	 */
	function loadHintFacts(member: string): void {
		const state = store.getState();
		const row = state.pool ? state.pools[state.pool]?.rows.find((r) => r.name === member) : null;
		// noted before the store changes: its subscriber must see these facts as read
		hintLoadedFor = row ? { member, key: hintKey(row) } : null;
		state.setHintFacts(member);
		if (!row) return;
		const ctx = state.pool
			? engine.context({ namespace: poolNamespace(state.pool, namespace) })
			: engine.ctx;
		const keep = <T>(key: keyof HintFacts, read: Promise<T>) =>
			void read.then(
				(value) => {
					if (store.getState().hintFacts?.member === member)
						store.getState().setHintFacts(member, { [key]: { value } });
				},
				(err: unknown) => {
					if (store.getState().hintFacts?.member === member)
						store.getState().setHintFacts(member, {
							[key]: { unavailable: describeError(err) },
						});
				},
			);
		if (row.state === 'Unschedulable') keep('rooms', readNodeRooms(ctx));
		if (row.state === 'Failed' && failureKind(row.message) === 'CrashLoopBackOff')
			keep('log', readLastLogLines(ctx, member, HINT_LOG_LINES));
	}

	/** The trace sink of a pool's reconciles: each event goes to the pool's last plan in the store. */
	const traceInto =
		(key: string): TraceSink =>
		(e) =>
			store.getState().traceEvent(key, e);

	/** A context in the pool's namespace whose events go to the log, remembering whether one was an error. */
	const context = (key: string) => {
		const seen = { error: false };
		const ctx = engine.context({
			namespace: poolNamespace(key, namespace),
			emit: (e: EngineEvent) => {
				if (e.outcome === 'error') seen.error = true;
				store.getState().logEvent(e);
			},
			onTrace: traceInto(key),
		});
		return { ctx, seen };
	};

	/** Shows refused credentials (401/403) in the header. */
	const noteAuth = (message: string) => {
		if (authWord(message)) store.getState().setAuthProblem(message);
	};

	/** Runs a user action with the spinner; its outcome goes to the status line and the log. */
	const act = (
		label: string,
		where: { pool: string; member?: string; action: string },
		fn: (ctx: EngineContext, progress: (m: string) => void) => Promise<string>,
	) => {
		const s = store.getState();
		if (s.busy) {
			s.setStatus(`wait: ${s.busy.label} is running`, 'error');
			return;
		}
		s.setBusy({ label });
		const { ctx, seen } = context(where.pool);
		running = (async () => {
			try {
				const message = inPool(where.pool, await fn(ctx, (m) => store.getState().setBusyDetail(m)));
				store.getState().setStatus(message, 'ok');
				store.getState().setAuthProblem(null);
			} catch (err) {
				const message = inPool(where.pool, describeError(err));
				noteAuth(message);
				store.getState().setStatus(message, 'error');
				if (!seen.error)
					store.getState().logEvent({
						time: Date.now(),
						actor,
						pool: where.pool,
						...(where.member ? { member: where.member } : {}),
						action: where.action,
						outcome: 'error',
						message,
					});
			} finally {
				store.getState().setBusy(null);
			}
		})();
	};
	let running: Promise<void> | null = null;
	let logFollow: AbortController | null = null;
	/** The last lines of a member's pod that was replaced while its log was followed. */
	let kept: { member: string; lines: readonly string[] } | null = null;

	const reconcileWith = async (ctx: EngineContext, pool: string): Promise<string> => {
		const result = await reconcile(ctx, pool);
		const steps = result.actions.map((a) => `${a.step} ${a.member}${a.ok ? '' : ' (failed)'}`);
		const did = steps.length > 0 ? steps.join(', ') : 'nothing to do';
		if (result.errors.length > 0)
			throw new Error(
				`reconcile ${pool}: ${result.errors.length} failed: ${result.errors.join('; ')}`,
			);
		return `reconciled ${pool}: ${did}`;
	};

	const loop = createReconcileLoop({
		store,
		intervalMs: opts.loopIntervalMs ?? store.getState().loop.intervalMs,
		reconcileOnce: async (key) => {
			const pool = poolName(key);
			// a pass that changes nothing stays out of the log: its pass-level events are held
			// back until a step (or an error) shows the pass did something, then go in live
			let held: EngineEvent[] = [];
			let live = false;
			let sawError = false;
			const flush = () => {
				live = true;
				for (const e of held) store.getState().logEvent(e);
				held = [];
			};
			const ctx = engine.context({
				namespace: poolNamespace(key, namespace),
				emit: (e: EngineEvent) => {
					if (e.outcome === 'error') sawError = true;
					if (live) store.getState().logEvent(e);
					else {
						held.push(e);
						if (e.action !== 'reconcile' || e.outcome === 'error') flush();
					}
				},
				onTrace: traceInto(key),
			});
			try {
				const result = await reconcile(ctx, pool);
				if (result.actions.length > 0 || result.errors.length > 0) flush();
				const refused = result.errors.find((e) => authWord(e) !== null);
				store.getState().setAuthProblem(refused ?? null);
				return { failed: result.errors.length > 0 };
			} catch (err) {
				flush();
				const message = describeError(err);
				noteAuth(message);
				if (!sawError)
					store.getState().logEvent({
						time: Date.now(),
						actor,
						pool: key,
						action: 'reconcile',
						outcome: 'error',
						message,
					});
				// logged; the loop retries it with backoff, or not at all for a broken definition
				throw err;
			}
		},
	});

	return {
		loop,
		claim(key, identity) {
			act(`claiming in ${key} for ${identity}`, { pool: key, action: 'claim' }, async (ctx) => {
				const r = await claim(ctx, poolName(key), identity);
				store.getState().selectMember(r.member);
				return r.existing
					? `${identity} already holds ${r.member}${r.renewed ? ' (expired claim renewed)' : ''}`
					: `${r.member} claimed by ${identity}${r.started ? ' (starting it)' : ''}`;
			});
		},
		release(key, member) {
			act(
				`releasing ${member}`,
				{ pool: key, member, action: 'release' },
				async (ctx, progress) => {
					const r = await release(ctx, poolName(key), member, actor, {
						force: true,
						onProgress: progress,
					});
					return r.message;
				},
			);
		},
		reconcile(key) {
			act(`reconciling ${key}`, { pool: key, action: 'reconcile' }, (ctx) =>
				reconcileWith(ctx, poolName(key)),
			);
		},
		toggleLoop(pool) {
			if (loop.pool()) {
				loop.stop();
				store.getState().setStatus('live reconcile loop off');
			} else if (pool) {
				loop.start(pool);
				store
					.getState()
					.setStatus(
						`live reconcile loop on for ${pool}: every ${Math.round(store.getState().loop.intervalMs / 1000)}s and after each change`,
					);
			}
		},
		maintenance(key, member, on, reason) {
			act(
				`${on ? 'setting' : 'clearing'} maintenance on ${member}`,
				{ pool: key, member, action: 'maintenance' },
				async (ctx) => {
					await setMaintenance(ctx, poolName(key), member, on, on ? reason : undefined);
					return on
						? `${member} is in maintenance${reason ? `: ${reason}` : ''}`
						: `${member} is out of maintenance`;
				},
			);
		},
		bulk(key, action, members, reason) {
			const verb = bulkVerb(action);
			act(
				`${verb} of ${members.length} member${members.length === 1 ? '' : 's'}`,
				{ pool: key, action: action === 'release' ? 'release' : 'maintenance' },
				async (ctx, progress) => {
					const failed: string[] = [];
					const done: string[] = [];
					for (const [i, member] of members.entries()) {
						progress(`${i + 1}/${members.length} ${member}`);
						try {
							await bulkStep(ctx, poolName(key), action, member, reason, (m) =>
								progress(`${i + 1}/${members.length} ${member}: ${m}`),
							);
							done.push(member);
						} catch (err) {
							const message = describeError(err);
							noteAuth(message);
							failed.push(`${member}: ${message}`);
							store.getState().logEvent({
								time: Date.now(),
								actor,
								pool: key,
								member,
								action: action === 'release' ? 'release' : 'maintenance',
								outcome: 'error',
								message,
							});
						}
					}
					// the marks of the members done go; the failed stay marked for another try
					store.getState().setMarks(done, false);
					const summary = `${verb}: ${done.length} of ${members.length} done${done.length > 0 ? ` (${done.join(', ')})` : ''}`;
					if (failed.length > 0)
						throw new Error(`${summary}; ${failed.length} failed: ${failed.join('; ')}`);
					return summary;
				},
			);
		},
		releaseExpired(claims) {
			const n = claims.length;
			act(
				`releasing ${n} expired claim${n === 1 ? '' : 's'}`,
				{ pool: '', action: 'release' },
				async (ctx, progress) => {
					const outcomes = await releaseExpired(ctx, claims, {
						onProgress: progress,
						onOutcome: (o) => {
							if (o.ok) return;
							noteAuth(o.message);
							store.getState().logEvent({
								time: Date.now(),
								actor,
								pool: `${o.namespace}/${o.pool}`,
								member: o.member,
								action: 'release',
								outcome: 'error',
								message: o.message,
							});
						},
					});
					const done = outcomes.filter((o) => o.ok).map((o) => o.member);
					const failed = outcomes.filter((o) => !o.ok);
					const summary = `release expired: ${done.length} of ${n} done${done.length > 0 ? ` (${done.join(', ')})` : ''}`;
					if (failed.length > 0)
						throw new Error(
							`${summary}; ${failed.length} not: ${failed.map((o) => `${o.namespace}/${o.pool} ${o.member}: ${o.message}`).join('; ')}`,
						);
					return summary;
				},
			);
		},
		loadEvents(member) {
			loadHintFacts(member);
			const set = store.getState().setDetails;
			set({ member, loading: true, events: [], error: null });
			const open = store.getState().pool;
			const where = open
				? engine.context({ namespace: poolNamespace(open, namespace) })
				: engine.ctx;
			void memberEvents(where, member).then(
				(events) => {
					if (store.getState().details?.member === member)
						set({ member, loading: false, events, error: null });
				},
				(err) => {
					if (store.getState().details?.member === member)
						set({ member, loading: false, events: [], error: describeError(err) });
				},
			);
		},
		followLog(member, previous) {
			logFollow?.abort();
			const follow = new AbortController();
			logFollow = follow;
			const s = store.getState();
			// a replaced pod has no previous container: its predecessor's lines, kept, are shown
			if (previous && kept?.member === member && !hasPreviousContainer(store, member)) {
				s.setPodLog({
					member,
					previous,
					phase: 'ended',
					lines: kept.lines,
					dropped: 0,
					error: null,
					note: 'the replaced pod',
				});
				return;
			}
			s.setPodLog({ member, previous, phase: 'connecting', lines: [], dropped: 0, error: null });
			// lines are batched into one store update per tick of the event loop
			let pending: string[] = [];
			let timer: NodeJS.Timeout | null = null;
			const push = () => {
				timer = null;
				const lines = pending;
				pending = [];
				if (!follow.signal.aborted) store.getState().appendPodLog(member, lines);
			};
			const flush = () => {
				if (!timer) return;
				clearTimeout(timer);
				push();
			};
			const setPhase = (phase: PodLogView['phase'], error: string | null = null) => {
				if (follow.signal.aborted) return;
				flush();
				const log = store.getState().podLog;
				if (log?.member === member) store.getState().setPodLog({ ...log, phase, error });
			};
			const open = store.getState().pool;
			const ctx = open ? engine.context({ namespace: poolNamespace(open, namespace) }) : engine.ctx;
			const signal = AbortSignal.any([abort.signal, follow.signal]);
			const read = () =>
				memberLog(
					ctx,
					member,
					signal,
					(line) => {
						pending.push(sanitize(boundedString(line)));
						timer ??= setTimeout(push, 50);
					},
					{ previous },
					() => setPhase('following'),
				);
			if (previous) {
				void read().then(
					() => setPhase('ended'),
					(err) => setPhase('error', describeError(err)),
				);
				return;
			}
			void (async () => {
				let container = containerOf(store.getState().memberObjects(member).pod);
				for (;;) {
					let failure: string | null = null;
					try {
						await read();
					} catch (err) {
						failure = describeError(err);
					}
					if (signal.aborted) return;
					// refused while its container runs on (forbidden, a server error): an error, not
					// an end; either way a next container of the member is followed when it comes
					const now = containerOf(store.getState().memberObjects(member).pod);
					const running =
						failure !== null && now !== null && now.id !== '' && now.id === container?.id;
					setPhase(running ? 'error' : 'waiting', failure);
					const next = await nextContainer(store, member, container, signal);
					if (!next || signal.aborted) return;
					const log = store.getState().podLog;
					if (!log || log.member !== member) return;
					const between = betweenLine(member, container, next);
					if (container && next.uid !== container.uid) {
						kept = { member, lines: log.lines };
						store.getState().setPodLog({ ...log, lines: [between], dropped: 0 });
					} else store.getState().appendPodLog(member, [between]);
					container = next;
				}
			})();
		},
		stopLog() {
			logFollow?.abort();
			logFollow = null;
		},
		close() {
			unwatchDetails();
			loop.stop();
			logFollow?.abort();
			abort.abort();
		},
		async settle(timeoutMs) {
			if (!running || store.getState().busy === null) return;
			let timer: NodeJS.Timeout | undefined;
			await Promise.race([
				running,
				new Promise<void>((resolve) => {
					timer = setTimeout(resolve, timeoutMs);
				}),
			]);
			clearTimeout(timer);
		},
	};
}

/** One member's step of a bulk action. */
async function bulkStep(
	ctx: EngineContext,
	pool: string,
	action: BulkAction,
	member: string,
	reason: string,
	progress: (m: string) => void,
): Promise<void> {
	if (action === 'release')
		await release(ctx, pool, member, ctx.actor, { force: true, onProgress: progress });
	else
		await setMaintenance(
			ctx,
			pool,
			member,
			action === 'maintenance-on',
			action === 'maintenance-on' ? reason : undefined,
		);
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
