/** How apply and reconcile print what a reconcile did, and follow a rollout in waves. */

import type { EngineContext } from '../engine/context.js';
import type { ReconcileResult } from '../engine/reconcile.js';
import { waitsForVolume } from '../pool/member-state.js';
import { rolloutText } from '../pool/rollout.js';
import { sanitize } from '../text/sanitize.js';
import { EXIT_FAILED, EXIT_OK } from './failure.js';
import { type CommandIo, println } from './io.js';

const DONE: Record<string, string> = {
	create: 'created',
	start: 'started',
	replace: 'replaced',
	delete: 'deleted',
};

/** One line per step on stdout, one per failed step on stderr, and the pool's counts. */
export function printReconcile(io: CommandIo, result: ReconcileResult, prefix = ''): void {
	for (const a of result.actions) {
		if (a.ok) println(io.stdout, `${prefix}${a.member} ${DONE[a.step] ?? a.step}`);
	}
	for (const e of result.errors) println(io.stderr, `ctpool: ${prefix}${sanitize(e)}`);
	const s = result.status;
	println(
		io.stdout,
		`${prefix}pool ${result.pool}: desired ${s.desired}, observed ${s.observed}, ready ${s.ready}, claimed ${s.claimed}, free ${s.free}, unschedulable ${s.unschedulable}${volumeWaits(s.members)}${s.exhausted ? ' (exhausted: no member is free)' : ''}${s.rollout ? `; ${rolloutText(s.rollout)}` : ''}`,
	);
}

/**
 * `, starting 4 (waiting for their volumes)`: the members a new PVC holds back are a wait,
 * not a want of room; '' when none waits.
 */
export function volumeWaits(
	members: ReadonlyArray<{ state: string; message: string }>,
	separator = ', ',
): string {
	const waiting = members.filter(waitsForVolume).length;
	if (waiting === 0) return '';
	return `${separator}starting ${waiting} (waiting for ${waiting > 1 ? 'their volumes' : 'its volume'})`;
}

/** How apply and reconcile go on after a reconcile that left drifted members for later waves. */
export interface FollowOptions {
	/** --no-wait: leave the later waves to a watching reconciler. */
	noWait: boolean;
	signal?: AbortSignal;
	/** Before every line (the namespace, when pools of several are reconciled). */
	prefix?: string;
}

/**
 * After a reconcile that left drifted members for later waves of a rollout: with --no-wait,
 * says who goes on with it; else carries it to its end wave by wave (a progress line per
 * wait, the steps and counts of each wave) and says how it ended. Resolves with the exit
 * code: non-zero when a wave failed or the rollout stopped short.
 */
export async function followRollout(
	ctx: EngineContext,
	io: CommandIo,
	first: ReconcileResult,
	opts: FollowOptions,
): Promise<number> {
	const failedFirst = first.errors.length > 0 ? EXIT_FAILED : EXIT_OK;
	if (first.heldBack === 0) return failedFirst;
	const pool = first.pool;
	const prefix = opts.prefix ?? '';
	const where = ctx.namespace ? ` -n ${sanitize(ctx.namespace)}` : '';
	if (opts.noWait) {
		println(
			io.stdout,
			`${prefix}rollout of pool ${pool}: ${first.heldBack} drifted member${first.heldBack === 1 ? '' : 's'} wait${first.heldBack === 1 ? 's' : ''} for later waves, claimable with the old image; a watching reconciler goes on with them (ctpool reconcile ${pool}${where} --watch, or the one in the cluster)`,
		);
		return failedFirst;
	}
	const { carryRollout } = await import('../engine/rollout-waves.js');
	let failed = first.errors.length > 0;
	const end = await carryRollout(ctx, pool, first, {
		...(opts.signal ? { signal: opts.signal } : {}),
		onWait: (text) => println(io.stdout, `${prefix}rollout of pool ${pool}: ${text}`),
		onWave: (result, wave) => {
			printReconcile(io, result, `${prefix}wave ${wave}: `);
			if (result.errors.length > 0) failed = true;
		},
	});
	if (end.stopped) {
		println(io.stderr, `ctpool: ${prefix}${sanitize(end.stopped)}`);
		return EXIT_FAILED;
	}
	const members = end.last?.members ?? [];
	const claimedOld = members.filter((v) => v.hasLease && v.drifted && !v.aboveSize).length;
	const image = end.last?.spec ? ` on ${sanitize(end.last.spec.image)}` : '';
	println(
		io.stdout,
		`${prefix}rollout of pool ${pool} done in ${end.waves.length + 1} waves: every unclaimed member is${image} and Ready${claimedOld > 0 ? `; ${claimedOld} claimed member${claimedOld === 1 ? '' : 's'} on the old image follow${claimedOld === 1 ? 's' : ''} when released` : ''}`,
	);
	return failed ? EXIT_FAILED : EXIT_OK;
}
