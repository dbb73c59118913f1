/** What the chaos actors share: the cluster, the timeline, the counts, and when to stop. */

import type { Kube } from '../source/kube/config.js';
import type { SimCluster } from '../source/sim/index.js';
import type { Timeline } from './timeline.js';
import type { Truth } from './truth.js';

/** What every actor did, summed. */
export interface ActorCounts {
	claims: number;
	/** Claims that returned the member the identity already held. */
	claimsExisting: number;
	noFree: number;
	claimErrors: number;
	/** Two claims at once by one identity (a double click). */
	doubleClaims: number;
	releases: number;
	releaseErrors: number;
	/** Releases whose destroy failed and that put the member in maintenance. */
	quarantined: number;
	forceReleases: number;
	forceReleaseErrors: number;
	imageChanges: number;
	sizeChanges: number;
	applyErrors: number;
	/** Member pods made to crash or fail. */
	memberFailures: number;
	/** Quarantined members recovered by the admin (pod and PVC deleted by hand). */
	recoveries: number;
	recoveryErrors: number;
	/** Why operations failed: `claim: <message with names and numbers blurred>` -> how often. */
	failures: Record<string, number>;
}

/** A fresh set of zero counts. */
export function zeroCounts(): ActorCounts {
	return {
		claims: 0,
		claimsExisting: 0,
		noFree: 0,
		claimErrors: 0,
		doubleClaims: 0,
		releases: 0,
		releaseErrors: 0,
		quarantined: 0,
		forceReleases: 0,
		forceReleaseErrors: 0,
		imageChanges: 0,
		sizeChanges: 0,
		applyErrors: 0,
		memberFailures: 0,
		recoveries: 0,
		recoveryErrors: 0,
		failures: {},
	};
}

/** The shared world of the actors. */
export interface World {
	pool: string;
	namespace: string;
	/** The simulated cluster; null on a real one (no member failures through its kubelet). */
	sim: SimCluster | null;
	/** The cluster connection of the in-process actors (through the faults). */
	kube: Kube;
	timeline: Timeline;
	truth: Truth;
	counts: ActorCounts;
	/** The pool size the run is about. */
	baseSize: number;
	log(line: string): void;
	/** True once the actors must stop starting new operations. */
	stopping(): boolean;
	/**
	 * Resolves once `truth` holds what the cluster holds now: at once on the simulated
	 * cluster (its store), after the watches caught up on a real one.
	 */
	sync(): Promise<void>;
}

/** Waits ms, or less when the world starts stopping. */
export function pause(world: World, ms: number): Promise<void> {
	return new Promise((resolve) => {
		const start = Date.now();
		const tick = () => {
			if (world.stopping() || Date.now() - start >= ms) resolve();
			else setTimeout(tick, Math.min(100, ms - (Date.now() - start)));
		};
		setTimeout(tick, Math.min(100, ms));
	});
}

/** The text of an error, for logs. */
export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}

/** The PoolError kind of an error, or ''. */
export function errorKind(err: unknown): string {
	const k = (err as { kind?: unknown })?.kind;
	return typeof k === 'string' ? k : '';
}

/** Counts one failure of an operation under its message, with member names and numbers blurred. */
export function tallyFailure(counts: ActorCounts, operation: string, err: unknown): void {
	const text = errorText(err)
		.replace(/[a-z0-9-]+-\d+(-data)?\b/g, 'M')
		.replace(/user\d+@example\.com/g, 'U')
		.replace(/\d+/g, 'N')
		.slice(0, 140);
	const key = `${operation}: ${text}`;
	counts.failures[key] = (counts.failures[key] ?? 0) + 1;
}
