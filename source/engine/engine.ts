/**
 * An engine: one cluster connection with its caches (the shared claim read of each pool, the
 * claims in flight, the Event writes under way), its clock and its identity. A process makes
 * one per connection; every operation runs through it, as a method or as a function given
 * one of its contexts. Two engines share nothing.
 */

import type { Kube } from '../kube/config.js';
import { apply, writeDefinition } from './apply.js';
import { readAudit } from './audit.js';
import { claim } from './claim.js';
import { claimFromFeed, watchPoolForClaims } from './claim-cache.js';
import {
	createEngineContext,
	type DerivedContextOptions,
	deriveContext,
	type EngineContext,
	type EngineContextOptions,
} from './context.js';
import { readDefinition } from './definition.js';
import { deletePool } from './delete-pool.js';
import { flushEngineWrites } from './kube-event.js';
import { setMaintenance } from './maintenance.js';
import { memberEvents } from './member-events.js';
import { listPools, listPoolsAcross, readPool } from './read-pool.js';
import { reconcile } from './reconcile.js';
import { release } from './release.js';
import { findExpiredClaims, releaseExpired } from './release-expired.js';

/** An operation with its context taken from the engine. */
type Bound<F> = F extends (ctx: EngineContext, ...args: infer A) => infer R
	? (...args: A) => R
	: never;

/** One engine over a cluster connection. */
export interface Engine {
	/** The cluster connection every call goes through. */
	readonly kube: Kube;
	/** The engine's context: what the methods run in, and what the functions of engine/ take. */
	readonly ctx: EngineContext;
	/** A context of this engine with other settings (a sink, a signal, an actor, a namespace). */
	context(opts?: DerivedContextOptions): EngineContext;
	/** This engine acting as another identity (same caches). */
	withActor(actor: string): Engine;
	/** This engine in another namespace (same caches). */
	inNamespace(namespace: string): Engine;
	apply: Bound<typeof apply>;
	writeDefinition: Bound<typeof writeDefinition>;
	claim: Bound<typeof claim>;
	/**
	 * Keeps a pool's objects in a watch-fed cache that this engine's claims answer from (a
	 * long-running process: a broker, the console, the controller); stop() ends it.
	 */
	watchPoolForClaims: Bound<typeof watchPoolForClaims>;
	/**
	 * Makes this engine's claims of a pool answer from a feed the process already has (the
	 * console's watch-fed store) instead of watches of their own; stop() ends that.
	 */
	claimFromFeed: Bound<typeof claimFromFeed>;
	/** Resolves once the writes left after an answer (Events, a cache-fed claim's display copy) are done. */
	flush(): Promise<void>;
	release: Bound<typeof release>;
	findExpiredClaims: Bound<typeof findExpiredClaims>;
	releaseExpired: Bound<typeof releaseExpired>;
	reconcile: Bound<typeof reconcile>;
	deletePool: Bound<typeof deletePool>;
	setMaintenance: Bound<typeof setMaintenance>;
	readPool: Bound<typeof readPool>;
	listPools: Bound<typeof listPools>;
	listPoolsAcross: Bound<typeof listPoolsAcross>;
	readDefinition: Bound<typeof readDefinition>;
	memberEvents: Bound<typeof memberEvents>;
	readAudit: Bound<typeof readAudit>;
}

/** Binds an operation to a context. */
function bind<A extends unknown[], R>(
	ctx: EngineContext,
	op: (ctx: EngineContext, ...args: A) => R,
): (...args: A) => R {
	return (...args) => op(ctx, ...args);
}

/** The engine whose context is ctx (a context made by createEngineContext or derived from one). */
export function engineOf(ctx: EngineContext): Engine {
	return {
		kube: ctx.kube,
		ctx,
		context: (opts) => deriveContext(ctx, opts),
		withActor: (actor) => engineOf(deriveContext(ctx, { actor })),
		inNamespace: (namespace) => engineOf(deriveContext(ctx, { namespace })),
		apply: bind(ctx, apply),
		writeDefinition: bind(ctx, writeDefinition),
		claim: bind(ctx, claim),
		watchPoolForClaims: bind(ctx, watchPoolForClaims),
		claimFromFeed: bind(ctx, claimFromFeed),
		flush: () => flushEngineWrites(ctx),
		release: bind(ctx, release),
		findExpiredClaims: bind(ctx, findExpiredClaims),
		releaseExpired: bind(ctx, releaseExpired),
		reconcile: bind(ctx, reconcile),
		deletePool: bind(ctx, deletePool),
		setMaintenance: bind(ctx, setMaintenance),
		readPool: bind(ctx, readPool),
		listPools: bind(ctx, listPools),
		listPoolsAcross: bind(ctx, listPoolsAcross),
		readDefinition: bind(ctx, readDefinition),
		memberEvents: bind(ctx, memberEvents),
		readAudit: bind(ctx, readAudit),
	};
}

/**
 * A new engine over a loaded cluster connection: its namespace, identity (actor), clock,
 * event sink and limits from options, with defaults for the rest, and caches of its own.
 */
export function createEngine(kube: Kube, options: EngineContextOptions = {}): Engine {
	return engineOf(createEngineContext(kube, options));
}
