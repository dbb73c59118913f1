/**
 * A rollout in waves carried to its end by one command: after the reconcile that replaced the
 * first wave, wait until that wave is Ready (so that the next one may go without taking more
 * than maxUnavailable members away), reconcile again, and so on, until no drifted member is
 * left waiting and the last wave is Ready. A wave whose members fail on the new source halts
 * it: the members still on the old image stay claimable, and the command says what to fix.
 */

import { sleep } from '../kube/retry.js';
import type { MemberView } from '../pool/member-state.js';
import { heldByRollout, maxUnavailableOf, unavailableCount } from '../pool/rollout.js';
import { bounded } from '../text/sanitize.js';
import { type EngineContext, suggest } from './context.js';
import { type PoolSnapshot, readPool } from './read-pool.js';
import { type ReconcileResult, reconcile } from './reconcile.js';

/** Longest pause between two reads of the pool while a wave becomes Ready (ms). */
export const WAVE_POLL_MAX_MS = 1000;

/** How long a rollout may stand still (no member changed state) before the wait gives up (ms). */
export const WAVE_STALL_MS = 10 * 60_000;

/** Options of carryRollout. */
export interface CarryOptions {
	/** The result of each reconcile after the first, with its wave's number (2, 3, ...). */
	onWave?(result: ReconcileResult, wave: number): void;
	/** Said once each time a wait begins: what it waits for. */
	onWait?(text: string): void;
	/** Stops the waits (Ctrl-C): the rollout goes on with the next reconcile. */
	signal?: AbortSignal;
	/** See WAVE_STALL_MS. */
	stallMs?: number;
}

/** How a carried rollout ended. */
export interface RolloutEnd {
	/** Every reconcile after the first. */
	waves: ReconcileResult[];
	/** Why it stopped before its end (halted, interrupted, stalled); null when it ended. */
	stopped: string | null;
	/** The pool as last read (null when no wait read it). */
	last: PoolSnapshot | null;
}

/** The members within size that no user holds and that are not in maintenance. */
function unclaimed(s: PoolSnapshot): MemberView[] {
	return s.members.filter((v) => !v.hasLease && !v.aboveSize && !v.maintenance);
}

/** Why the rollout cannot go on by itself: a member made from the new source failed. */
function halted(ctx: EngineContext, s: PoolSnapshot): string | null {
	const failed = unclaimed(s).find((v) => !v.drifted && v.state === 'Failed');
	if (!failed) return null;
	const waiting = s.members.filter((v) => v.drifted && !v.aboveSize).length;
	const status = suggest(ctx, `status ${s.pool}`);
	const fix = s.spec ? suggest(ctx, `apply ${s.pool} --image <image>`) : status;
	return `rollout halted: ${failed.name} failed on the new source (${bounded(failed.message || 'Failed', 200)}); the ${waiting} member${waiting === 1 ? '' : 's'} on the old image stay${waiting === 1 ? 's' : ''} as they are; fix the definition (${fix}) or see ${status}`;
}

/** Whether a reconcile now would replace another wave (or has nothing left to wait for). */
function nextWaveCanGo(s: PoolSnapshot): boolean {
	if (!s.spec) return true;
	const held = s.members.filter(heldByRollout);
	if (held.length === 0) return true;
	const limit = maxUnavailableOf(s.spec);
	return limit === null || unavailableCount(s.members) < limit;
}

/** Whether every unclaimed member is on the current source and Ready: the rollout's end. */
function rolledOut(s: PoolSnapshot): boolean {
	return unclaimed(s).every((v) => !v.drifted && v.state === 'Ready' && !v.reconciling);
}

/** A key that changes whenever a member changes state, source or Lease: progress. */
function progressKey(s: PoolSnapshot): string {
	return s.members
		.map((v) => `${v.name}:${v.state}:${v.drifted}:${v.hasLease}:${v.reconciling}`)
		.join(',');
}

/** The members a wait is for: those of the wave under way (unclaimed, on the new source, not Ready). */
function waveText(s: PoolSnapshot): string {
	const names = unclaimed(s)
		.filter((v) => !v.drifted && (v.state !== 'Ready' || v.reconciling))
		.map((v) => v.name);
	if (names.length === 0) return 'the members being replaced';
	const shown = names.slice(0, 6).join(', ');
	return names.length > 6 ? `${shown} and ${names.length - 6} more` : shown;
}

/** What a wait came to: the pool as last read, and why it stopped short (null: done). */
interface WaitEnd {
	last: PoolSnapshot | null;
	why: string | null;
}

/**
 * Waits until done(snapshot) says true, a member fails on the new source (halted), the pool
 * stands still for stallMs, or the signal stops it.
 */
async function waitUntil(
	ctx: EngineContext,
	pool: string,
	done: (s: PoolSnapshot) => boolean,
	opts: CarryOptions,
): Promise<WaitEnd> {
	const stallMs = opts.stallMs ?? WAVE_STALL_MS;
	let pause = 100;
	let key = '';
	let since = Date.now();
	let last: PoolSnapshot | null = null;
	for (;;) {
		if (opts.signal?.aborted)
			return {
				last,
				why: `interrupted; the rollout goes on with the next reconcile (${suggest(ctx, `reconcile ${pool}`)})`,
			};
		const s = await readPool(ctx, pool);
		last = s;
		const why = halted(ctx, s);
		if (why) return { last, why };
		if (done(s)) return { last, why: null };
		const now = progressKey(s);
		if (now !== key) {
			key = now;
			since = Date.now();
		} else if (Date.now() - since >= stallMs)
			return {
				last,
				why: `rollout stalled: nothing changed for ${Math.round(stallMs / 1000)} s while waiting for ${waveText(s)} to be Ready; see ctpool status ${pool}`,
			};
		await sleep(pause, opts.signal);
		pause = Math.min(WAVE_POLL_MAX_MS, pause * 2);
	}
}

/**
 * Carries a rollout in waves to its end, after the first reconcile (first): while that left
 * drifted members for a later wave, waits for the wave under way to be Ready and reconciles
 * again; then waits for the last wave. Resolves with each later reconcile's result and why it
 * stopped early, if it did. A reconcile that held nothing back needs nothing of this.
 */
export async function carryRollout(
	ctx: EngineContext,
	pool: string,
	first: ReconcileResult,
	opts: CarryOptions = {},
): Promise<RolloutEnd> {
	const waves: ReconcileResult[] = [];
	let last = first;
	while (last.heldBack > 0) {
		opts.onWait?.(
			`waiting for the wave under way to be Ready; ${last.heldBack} drifted member${last.heldBack === 1 ? '' : 's'} wait${last.heldBack === 1 ? 's' : ''}, claimable with the old image`,
		);
		const wait = await waitUntil(ctx, pool, nextWaveCanGo, opts);
		if (wait.why) return { waves, stopped: wait.why, last: wait.last };
		last = await reconcile(ctx, pool);
		waves.push(last);
		opts.onWave?.(last, waves.length + 1);
	}
	if (waves.length === 0) return { waves, stopped: null, last: null };
	opts.onWait?.('waiting for the last wave to be Ready');
	const wait = await waitUntil(ctx, pool, rolledOut, opts);
	return { waves, stopped: wait.why, last: wait.last };
}
