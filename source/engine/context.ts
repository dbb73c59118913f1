/**
 * The context every engine operation runs in: clients, namespace, actor, clock, event sink,
 * and the caches of the engine it belongs to.
 */

import { hostname, userInfo } from 'node:os';
import type { Kube } from '../kube/config.js';
import { type CommandScope, ctpoolCommand, kubectlCommand } from '../pool/command-hint.js';
import { identityProblem, RECONCILER_IDENTITY } from '../pool/errors.js';
import type { ClaimCaches } from './claim-cache.js';
import type { ClaimReads } from './claim-snapshot.js';
import type { FailureTally } from './failure-events.js';
import type { KnownStrangers } from './known-strangers.js';
import type { RefusalTally } from './kube-event.js';
import type { TraceEvent, TraceSink } from './reconcile-plan.js';

/** One step of an operation, as the CLI prints it and the TUI logs it. */
export interface EngineEvent {
	/** When it happened (ms, from the context's clock). */
	time: number;
	/** Who acted: the identity running the operation. */
	actor: string;
	pool: string;
	member?: string;
	/** What was done: reconcile, create, start, replace, delete, claim, release, apply, ... */
	action: string;
	outcome: 'start' | 'ok' | 'error' | 'info';
	message: string;
	/**
	 * Set on an error that did not fail its operation (the claim stands, the reconcile went
	 * on): nothing else reports it, so a command prints it.
	 */
	partial?: true;
}

/** Everything an operation needs: the same for the CLI, the TUI and the tests. */
export interface EngineContext {
	kube: Kube;
	namespace: string;
	/** The identity acting (for events and Kubernetes Events); not a claim identity. */
	actor: string;
	/** The clock (ms since the epoch); tests inject one. */
	now(): number;
	/** Receives every step of every operation. */
	emit(e: EngineEvent): void;
	/** Receives a reconcile's story: its plan, each step's progress and result (reconcile-plan.ts). */
	onTrace?: TraceSink;
	/** How long to wait for one delete (pod, Service, PVC) to finish. */
	deleteTimeoutMs: number;
	/** How many members one operation works on at the same time. */
	concurrency: number;
	/** Aborts long waits and stops starting new steps. */
	signal?: AbortSignal;
	/**
	 * What a command suggested in a message needs to run as printed (the namespace a bare
	 * ctpool picks, the --context given); absent: -n is always written (see suggest).
	 */
	commandScope?: CommandScope;
	/**
	 * The id of the reconcile pass this context runs (set by reconcile for the pass's own
	 * context): every audit Event the pass writes carries it, so a reader can group another
	 * reconciler's acts by pass (see audit-passes.ts). Absent outside a pass.
	 */
	auditPass?: string;
	/**
	 * The state of the engine this context belongs to: every context made from it (another
	 * actor, namespace, sink or signal) shares it; a context of another engine never does.
	 */
	readonly caches: EngineCaches;
}

/**
 * What one engine keeps between operations. Nothing of it lives in a module: two engines in
 * one process (two cluster connections, two tests) share nothing, and one engine's concurrent
 * claims (a broker) share one read of the pool.
 */
export interface EngineCaches {
	/** The shared read of each pool for claims, by namespace and pool. */
	claimReads: ClaimReads;
	/** The watch-fed caches of pools a long-running process claims from (claim-cache.ts). */
	claimCaches: ClaimCaches;
	/** The claims in flight, by namespace, pool and identity (one identity's claims queue up). */
	claimsInFlight: Map<string, Promise<unknown>>;
	/**
	 * The claims settling a member they just won, by namespace and member: each resolves
	 * whether the member stays unavailable (false: given back free, remembered so until a
	 * claim that lost its create has seen it).
	 */
	claimsSettling: Map<string, Promise<boolean>>;
	/** The Kubernetes Event writes not yet done, by the context (operation) that started them. */
	pendingEvents: WeakMap<EngineContext, Set<Promise<unknown>>>;
	/** Every such write of the engine, whatever context started it (engine.flush waits for them). */
	pendingWrites: Set<Promise<unknown>>;
	/** The engine's claims before their answer, and the writes after an answer waiting for none (kube-event.ts answering). */
	answering: { count: number; waiters: Array<() => void> };
	/** Whether a denied Event write was reported already (it is said once per engine). */
	eventsDeniedReported: boolean;
	/** Refused claims being tallied, by namespace, pool and identity (see recordRefusal). */
	refusals: Map<string, RefusalTally>;
	/** Objects under members' names that are not the pool's, met by reconciles (known-strangers.ts). */
	strangers: KnownStrangers;
	/** The last failure written of each member's steps (failure-events.ts). */
	failures: Map<string, FailureTally>;
}

/** New, empty engine caches. */
export function createEngineCaches(): EngineCaches {
	return {
		claimReads: new Map(),
		claimCaches: new Map(),
		claimsInFlight: new Map(),
		claimsSettling: new Map(),
		pendingEvents: new WeakMap(),
		pendingWrites: new Set(),
		answering: { count: 0, waiters: [] },
		eventsDeniedReported: false,
		refusals: new Map(),
		strangers: new Map(),
		failures: new Map(),
	};
}

/** What may be set when a context is made: everything but the connection and the caches. */
export type EngineContextOptions = Partial<Omit<EngineContext, 'kube' | 'caches'>>;

/**
 * What a context derived from another may change: not its connection, clock or caches (the
 * shared reads were made with that connection and judged with that clock).
 */
export type DerivedContextOptions = Partial<Omit<EngineContext, 'kube' | 'caches' | 'now'>>;

/** The default wait for one delete: the seed's two minutes. */
export const DEFAULT_DELETE_TIMEOUT_MS = 120_000;
/** The default number of members worked on at once. */
export const DEFAULT_CONCURRENCY = 8;
/** The actor when none is given. */
export const DEFAULT_ACTOR = 'ctpool';

/** The environment variable that names the acting identity when --identity is not given. */
export const IDENTITY_ENV = 'CTPOOL_IDENTITY';

/**
 * The acting identity, the same on the CLI and in the console: the one given (--identity),
 * else $CTPOOL_IDENTITY, else `<os user>@<host>` (`ctpool` stands in for a part not known).
 */
export function actingIdentity(
	given: string | undefined,
	env: Readonly<Record<string, string | undefined>> = process.env,
): string {
	if (given) return given;
	const fromEnv = env[IDENTITY_ENV];
	if (fromEnv) return fromEnv;
	let user = '';
	try {
		user = userInfo().username;
	} catch {
		// no passwd entry
	}
	user ||= env.USER || env.USERNAME || '';
	let host = '';
	try {
		host = hostname();
	} catch {
		// no host name
	}
	const clean = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '');
	return `${clean(user) || DEFAULT_ACTOR}@${clean(host) || DEFAULT_ACTOR}`;
}

/**
 * Why the acting identity given (--identity, else $CTPOOL_IDENTITY) is unusable, or null:
 * it is checked like a claim identity (no control, invisible or bidi characters, no white
 * space, at most 253 characters), and the reconciler's own identity is refused, so that no
 * Event or log line says the reconciler did what a user did. The default (user@host) is
 * made safe by actingIdentity itself.
 */
export function actorProblem(
	given: string | undefined,
	env: Readonly<Record<string, string | undefined>> = process.env,
): string | null {
	const fromFlag = given !== undefined && given !== '';
	const value = fromFlag ? given : env[IDENTITY_ENV];
	if (!value) return null;
	const source = fromFlag ? '--identity' : `$${IDENTITY_ENV}`;
	if (value === RECONCILER_IDENTITY)
		return `${source}: "${RECONCILER_IDENTITY}" is the reconciler's own identity, which only its Leases carry; act under your own identity, such as alice@example.com${fromFlag ? '' : `, or unset ${IDENTITY_ENV}`}`;
	const problem = identityProblem(value);
	if (!problem) return null;
	return `${source}: ${problem}${fromFlag ? '' : ` (or unset ${IDENTITY_ENV})`}`;
}

/** The clock when none is given. */
export const systemNow = (): number => Date.now();

/**
 * A context over a loaded cluster connection, with defaults for everything not given, and
 * caches of its own: a new engine. Contexts that should share an engine's reads are made
 * with deriveContext (or createEngine(...).context()).
 */
export function createEngineContext(kube: Kube, opts: EngineContextOptions = {}): EngineContext {
	const ctx: EngineContext = {
		caches: createEngineCaches(),
		kube,
		namespace: opts.namespace ?? kube.namespace,
		actor: opts.actor && opts.actor.length > 0 ? opts.actor : DEFAULT_ACTOR,
		now: opts.now ?? systemNow,
		emit: opts.emit ?? (() => {}),
		deleteTimeoutMs: opts.deleteTimeoutMs ?? DEFAULT_DELETE_TIMEOUT_MS,
		concurrency: Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY)),
	};
	if (opts.signal) ctx.signal = opts.signal;
	if (opts.commandScope) ctx.commandScope = opts.commandScope;
	if (opts.onTrace) ctx.onTrace = opts.onTrace;
	return ctx;
}

/** What a derived context keeps from its engine whatever it is given. */
const FIXED: readonly string[] = ['kube', 'caches', 'now'];

/** A context of the same engine (same connection, clock and caches) with some settings changed. */
export function deriveContext(ctx: EngineContext, opts: DerivedContextOptions = {}): EngineContext {
	const out: EngineContext = { ...ctx };
	for (const [k, v] of Object.entries(opts))
		if (v !== undefined && !FIXED.includes(k)) Object.assign(out, { [k]: v });
	if (opts.actor !== undefined && opts.actor.length === 0) out.actor = DEFAULT_ACTOR;
	if (opts.concurrency !== undefined) out.concurrency = Math.max(1, Math.floor(opts.concurrency));
	return out;
}

/** Sends one event through the context's sink; a throwing sink never breaks an operation. */
export function emitEvent(
	ctx: EngineContext,
	e: Omit<EngineEvent, 'time' | 'actor'> & { time?: number },
): void {
	try {
		const event: EngineEvent = {
			time: e.time ?? ctx.now(),
			actor: ctx.actor,
			pool: e.pool,
			action: e.action,
			outcome: e.outcome,
			message: e.message,
		};
		if (e.member !== undefined) event.member = e.member;
		if (e.partial) event.partial = true;
		ctx.emit(event);
	} catch {
		// an event sink's failure is not the operation's
	}
}

/** Sends one event of a reconcile's story to the context's trace sink; a throwing sink breaks nothing. */
export function emitTrace(ctx: EngineContext, e: TraceEvent): void {
	try {
		ctx.onTrace?.(e);
	} catch {
		// a trace sink's failure is not the operation's
	}
}

/** `ctpool <words>` as a message suggests it: runnable as printed in the context's namespace. */
export function suggest(
	ctx: Pick<EngineContext, 'namespace' | 'commandScope'>,
	words: string,
): string {
	return ctpoolCommand(words, ctx.namespace, ctx.commandScope);
}

/** `kubectl <words> -n <namespace>` as a message suggests it (with the --context given). */
export function suggestKubectl(
	ctx: Pick<EngineContext, 'namespace' | 'commandScope'>,
	words: string,
): string {
	return kubectlCommand(words, ctx.namespace, ctx.commandScope);
}
