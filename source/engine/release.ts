/**
 * release: the user is done. The claim is handed to the reconciler (CAS), the member is
 * destroyed and created again from the current source, and the Lease is deleted.
 */

import { sleep } from '../kube/retry.js';
import { authenticatedUser } from '../kube/whoami.js';
import { PoolError, RECONCILER_IDENTITY } from '../pool/errors.js';
import {
	claimUser,
	heldByReconciler,
	type LeaseStep,
	leaseExpired,
	leaseExpiry,
	leaseHolder,
	leaseTimeProblem,
	leaseWork,
	RECONCILER_LEASE_SECONDS,
	RECONCILER_RENEW_MS,
	renewedLease,
} from '../pool/lease.js';
import { strandedWayOut } from '../pool/member-state.js';
import { MAINTENANCE_ANNOTATION, memberIndex, memberName, pvcName } from '../pool/names.js';
import type { LeaseObject } from '../pool/objects.js';
import { sourceFields } from '../pool/spec.js';
import { formatAge } from '../text/age.js';
import { bounded, sanitize } from '../text/sanitize.js';
import { checkIdentity } from './claim.js';
import { changingPool } from './claim-snapshot.js';
import { checkPoolName, failureText } from './cluster-error.js';
import { type EngineContext, emitEvent, suggest, suggestKubectl } from './context.js';
import { readDefinition } from './definition.js';
import { checkOwned, ForeignObjectError, readService } from './foreign-objects.js';
import { flushKubeEvents, recordAudit } from './kube-event.js';
import { keepLease } from './lease-keeper.js';
import { deleteLease, readLease, replaceLease, stepAnnotations } from './member-lease.js';
import { annotateOwnedPvc, createMember, destroyMember, readMember } from './member-ops.js';

/** What a release did. */
export interface ReleaseResult {
	/** False when the member had no claim (nothing was done). */
	released: boolean;
	/** The member was created again (its index is within the pool size). */
	recreated: boolean;
	message: string;
}

/** Options of a release. */
export interface ReleaseOptions {
	/** Release a claim that another identity holds (an administrator). */
	force?: boolean;
	/** Progress of the long waits, one line at a time. */
	onProgress?: (message: string) => void;
	/**
	 * Release only an expired claim of this holder (`release --expired`): a claim renewed or
	 * handed over since it was listed is left alone (checked on the Lease the CAS is made on).
	 */
	expiredOf?: string;
}

/** Throws PoolError('usage') unless member names a member of the pool. */
export function checkMember(pool: string, member: string): number {
	const index = memberIndex(pool, member);
	if (index === null)
		throw new PoolError(
			'usage',
			`${JSON.stringify(sanitize(member).slice(0, 80))} is not a member of pool ${pool}; members are named ${memberName(pool, 1)}, ${memberName(pool, 2)}, ...`,
		);
	return index;
}

/** The text for a member the pool does not have: its members' range and the way to list them. */
export function noSuchMemberMessage(
	ctx: Pick<EngineContext, 'namespace' | 'commandScope'>,
	pool: string,
	member: string,
	size: number,
): string {
	const range =
		size === 0
			? 'it has no members (its size is 0)'
			: size === 1
				? `its only member is ${memberName(pool, 1)}`
				: `its members are ${memberName(pool, 1)} to ${memberName(pool, size)}`;
	return `pool ${pool} has no member ${bounded(member)}: ${range}; ${suggest(ctx, `status ${pool}`)} lists them`;
}

/**
 * Whether a member without a Lease exists: its index is within the size, or a pod or PVC of
 * the pool (above the size, not yet scaled down) stands under its name.
 */
async function memberExists(
	ctx: EngineContext,
	pool: string,
	member: string,
	index: number,
	size: number,
): Promise<boolean> {
	if (index <= size) return true;
	const objects = await readMember(ctx, pool, member);
	return objects.pod !== null || objects.pvc !== null;
}

/** Throws PoolError('busy') unless the Lease is still holder's claim and expired. */
function checkStillExpired(member: string, lease: LeaseObject, holder: string, now: number): void {
	const current = leaseHolder(lease);
	if (current !== holder)
		throw new PoolError(
			'busy',
			`${member} changed hands since it was listed (held by ${current ? bounded(current) : 'nobody'} now, not ${bounded(holder)}); left alone`,
		);
	if (!leaseExpired(lease, now))
		throw new PoolError(
			'busy',
			`${member}: ${bounded(holder)} renewed the claim since it was listed; left alone`,
		);
}

/**
 * Releases a member's claim. Without a Lease there is nothing to do. A holder other than
 * identity is refused unless force. The destroy waits until pod, Service and PVC are gone;
 * the member is created again when its index is within size; the Lease is deleted at the
 * end, also when a step failed.
 */
export async function release(
	ctx: EngineContext,
	pool: string,
	member: string,
	identity: string,
	opts: ReleaseOptions = {},
): Promise<ReleaseResult> {
	return changingPool(ctx, pool, () => releaseMember(ctx, pool, member, identity, opts));
}

async function releaseMember(
	ctx: EngineContext,
	pool: string,
	member: string,
	identity: string,
	opts: ReleaseOptions,
): Promise<ReleaseResult> {
	checkPoolName(pool);
	const index = checkMember(pool, member);
	checkIdentity(identity);
	const { spec } = await readDefinition(ctx, pool);
	let lease = await readLease(ctx, member);
	// Nothing under the member's name that is not the pool's is ever touched: checked before
	// the first write (the destroy checks each object again, with preconditions).
	checkOwned(pool, member, [['Lease', lease]]);
	if (!lease && !(await memberExists(ctx, pool, member, index, spec.size)))
		throw new PoolError('not-found', noSuchMemberMessage(ctx, pool, member, spec.size));
	if (!lease) {
		const message = `${member} has no claim; nothing to do`;
		emitEvent(ctx, { pool, member, action: 'release', outcome: 'info', message });
		return { released: false, recreated: false, message };
	}
	let holder = leaseHolder(lease);
	if (opts.expiredOf !== undefined) checkStillExpired(member, lease, opts.expiredOf, ctx.now());
	if (heldByReconciler(lease)) {
		const taken = await reconcilerHeld(ctx, member, lease, opts);
		if (!taken) {
			const message = `${member} has no claim any more (the step that held it ended); nothing to do`;
			emitEvent(ctx, { pool, member, action: 'release', outcome: 'info', message });
			return { released: false, recreated: false, message };
		}
		lease = taken;
		holder = leaseHolder(lease);
	} else if (holder !== identity && !opts.force) {
		throw new PoolError(
			'not-holder',
			holder
				? `${member} is claimed by ${bounded(holder)}, not by ${bounded(identity)}; only the holder can release it, or an administrator with --force`
				: `${member} has a Lease with no holder; an administrator can release it with --force`,
		);
	}
	const shown = holder ? bounded(holder) : '(no holder)';
	const [objects, service, releaser] = await Promise.all([
		readMember(ctx, pool, member),
		readService(ctx, member),
		authenticatedUser(ctx.kube),
	]);
	// Forced whenever the one releasing is not the one who claimed: another identity, or the
	// holder's identity named by another user than the cluster authenticated at the claim.
	const claimer = claimUser(lease);
	const otherUser = claimer !== '' && releaser !== null && releaser !== claimer;
	const forced = holder !== identity || otherUser;
	checkOwned(pool, member, [['Service', service === 'unreadable' ? null : service]]);
	emitEvent(ctx, {
		pool,
		member,
		action: 'release',
		outcome: 'start',
		message: `releasing ${member} (claimed by ${shown})${forced ? ' with --force' : ''}`,
	});
	const held = await replaceLease(ctx, lease, {
		holder: RECONCILER_IDENTITY,
		durationSeconds: RECONCILER_LEASE_SECONDS,
		transfer: true,
		annotations: stepAnnotations('release'),
	});
	if (!held)
		throw new PoolError(
			'busy',
			`the claim on ${member} changed while releasing it; run release again`,
		);
	// Renewed while the release runs: a release killed at any step leaves the member to the
	// next reconcile (or a forced release) within RECONCILER_LEASE_SECONDS, and the step
	// recorded on the Lease tells them the member may still hold the old desktop.
	const kept = keepLease(ctx, held);
	// One account of the act for every Event of this release: who held it, who named whom.
	const act = {
		member,
		...(holder ? { holder } : {}),
		identity,
		...(forced ? { force: true } : {}),
		...(otherUser ? { detail: `claimed by user ${claimer}, released by user ${releaser}` } : {}),
	};
	recordAudit(ctx, pool, { action: 'release', ...act });

	let destroyError = '';
	let recreateError = '';
	let recreated = false;
	try {
		const destroyOpts: Parameters<typeof destroyMember>[3] = {};
		if (opts.onProgress) destroyOpts.onProgress = opts.onProgress;
		// Only the objects checked above: one swapped in meanwhile is left alone.
		if (objects.pod?.metadata.uid) destroyOpts.podUid = objects.pod.metadata.uid;
		if (objects.pvc?.metadata.uid) destroyOpts.pvcUid = objects.pvc.metadata.uid;
		await destroyMember(ctx, pool, member, destroyOpts);
	} catch (err) {
		destroyError = failureText(err);
	}
	let quarantined = false;
	if (destroyError && ctx.signal?.aborted) {
		// Abandoned (the console quit twice, a signal): the reconciler's Lease is set to expire
		// at once, so the next reconcile takes it over and makes the member again from the
		// image; until then nobody can claim it.
		const expired = await replaceLease(ctx, await kept.stop(), {
			holder: RECONCILER_IDENTITY,
			durationSeconds: 1,
			transfer: false,
		}).catch(() => null);
		const failure = expired
			? `release of ${member} abandoned while ${destroyError}; its Lease expires at once, so the next reconcile makes it again`
			: `release of ${member} abandoned while ${destroyError}; its reconciler Lease expires in ${RECONCILER_LEASE_SECONDS} s, then the next reconcile makes it again`;
		emitEvent(ctx, { pool, member, action: 'release', outcome: 'error', message: failure });
		throw new PoolError('failed', failure);
	}
	if (destroyError) {
		quarantined = await quarantine(ctx, pool, member, identity, destroyError);
	} else if (index <= spec.size && !kept.lost()) {
		opts.onProgress?.(`creating ${member} again from ${spec.image}`);
		try {
			await createMember(ctx, pool, member, sourceFields(spec));
			recreated = true;
		} catch (err) {
			recreateError = failureText(err);
		}
	}
	const last = await kept.stop();
	let leaseError = '';
	if (kept.lost())
		leaseError =
			'its Lease was taken over while releasing it (renewals failed): the new holder makes the member again';
	else
		try {
			// A member that may still hold the old desktop and could not be marked keeps the
			// reconciler's Lease: nobody can claim it, and once the Lease expires the next
			// reconcile takes it over and makes the member again from the image.
			if (destroyError && !quarantined)
				leaseError = `it could not be put in maintenance either, so the reconciler keeps its Lease: nobody can claim it, and once it expires (in ${RECONCILER_LEASE_SECONDS} s) the next reconcile makes it again from the image`;
			else if (!(await deleteLease(ctx, last)))
				leaseError = 'its Lease changed hands meanwhile and was left to its new holder';
		} catch (err) {
			leaseError = `its Lease could not be removed (it expires in ${RECONCILER_LEASE_SECONDS} s, then the next reconcile takes it over): ${failureText(err)}`;
		}
	if (destroyError || recreateError)
		recordAudit(ctx, pool, {
			action: 'release-failed',
			...act,
			detail: destroyError || recreateError,
		});
	else if (recreated)
		recordAudit(ctx, pool, {
			action: 'create',
			member,
			detail: `again from ${spec.image} after its release`,
		});
	await flushKubeEvents(ctx);

	const extra = leaseError ? `; ${leaseError}` : '';
	let failure = '';
	if (destroyError && quarantined)
		failure = `release of ${member}: ${destroyError}; it is now in maintenance so that nobody gets the old desktop: delete pod ${member} and PVC ${pvcName(member)} (${suggestKubectl(ctx, `delete pod ${member}`)}; ${suggestKubectl(ctx, `delete pvc ${pvcName(member)}`)}), and the next reconcile makes it again${extra}`;
	else if (destroyError) failure = `release of ${member}: ${destroyError}; ${leaseError}`;
	else if (recreateError)
		failure = `released ${member}, but creating it again failed: ${recreateError}; the next reconcile creates it${extra}`;
	else if (leaseError) failure = `released ${member}, but ${leaseError}`;
	if (failure) {
		emitEvent(ctx, { pool, member, action: 'release', outcome: 'error', message: failure });
		throw new PoolError('failed', failure);
	}
	const message = recreated
		? `released ${member} (claimed by ${shown}); it was destroyed and created again from ${spec.image}`
		: `released ${member} (claimed by ${shown}); it was destroyed and not created again (index ${index} is above the pool size ${spec.size})`;
	emitEvent(ctx, { pool, member, action: 'release', outcome: 'ok', message });
	return { released: true, recreated, message };
}

/**
 * A member whose destroy failed may still hold the previous user's data: put it in
 * maintenance so that it is never free, and the next user never gets the old desktop.
 * Resolves false when the mark could not be written.
 */
async function quarantine(
	ctx: EngineContext,
	pool: string,
	member: string,
	identity: string,
	why: string,
): Promise<boolean> {
	const reason = `release by ${identity} failed (${why.slice(0, 200)}); the previous user's data may remain`;
	try {
		// Only the pool's own PVC is marked; no PVC (or one not the pool's) holds no old data.
		await annotateOwnedPvc(ctx, pool, member, { [MAINTENANCE_ANNOTATION]: reason });
		return true;
	} catch (err) {
		if (err instanceof ForeignObjectError) return true;
		emitEvent(ctx, {
			pool,
			member,
			action: 'release',
			outcome: 'error',
			message: `${member} could not be put in maintenance: ${failureText(err)}`,
		});
		return false;
	}
}

/** How often a forced release looks at a live reconciler Lease while it waits for its expiry. */
const FORCE_POLL_MS = 1_000;

/** What the holder of a reconciler Lease is doing, in words: `releasing it (on host-a)`. */
function workText(lease: LeaseObject): string {
	const { step, host } = leaseWork(lease);
	const doing = step ? STEP_DOING[step] : 'working on it';
	return host ? `${doing} (on ${bounded(sanitize(host))})` : doing;
}

const STEP_DOING: Readonly<Record<LeaseStep, string>> = {
	release: 'releasing it',
	create: 'creating it',
	start: 'starting it',
	replace: 'replacing it',
	delete: 'deleting it',
	takeover: 'taking over its Lease',
};

/** Seconds from now until t, at least 0, rounded up. */
function secondsUntil(t: number, now: number): number {
	return Math.max(0, Math.ceil((t - now) / 1000));
}

/**
 * A member whose Lease the reconciler holds. An expired (or stranded) Lease is taken over
 * with --force. A live one is refused without --force, saying who works on it and what
 * happens if that process is gone; with --force the release waits for it to expire (it
 * lasts RECONCILER_LEASE_SECONDS unless renewed), then takes it over; a renewal meanwhile
 * means its holder is alive, and the release is refused. Resolves with the Lease to take
 * over, or null when it went away meanwhile (the step ended).
 */
async function reconcilerHeld(
	ctx: EngineContext,
	member: string,
	lease: LeaseObject,
	opts: ReleaseOptions,
): Promise<LeaseObject | null> {
	const stranded = leaseTimeProblem(lease, ctx.now());
	if (stranded) {
		if (opts.force) return lease;
		throw new PoolError(
			'not-holder',
			`${member}: ${stranded}; ${strandedWayOut({ name: member })}`,
		);
	}
	const expiry = leaseExpiry(lease) ?? 0;
	if (leaseExpired(lease, ctx.now())) {
		if (opts.force) return lease;
		throw new PoolError(
			'not-holder',
			`${member} is held by a reconciler that stopped mid-step (its Lease has expired); the next reconcile takes it over, or release it with --force`,
		);
	}
	const left = secondsUntil(expiry, ctx.now());
	if (!renewedLease(lease))
		throw new PoolError(
			'busy',
			`${member} is held by a reconciler Lease of an older ctpool, which does not renew it: it expires in ${formatAge(left * 1000)} (${new Date(expiry).toISOString()}); then the next reconcile makes ${member} again, or run release --force then`,
		);
	if (!opts.force)
		throw new PoolError(
			'busy',
			`${member} is being worked on right now: ${RECONCILER_IDENTITY} holds its Lease, ${workText(lease)}; its holder renews the Lease every ${RECONCILER_RENEW_MS / 1000} s, and it expires in ${left} s unless renewed. Wait for it to finish; if that process was stopped, the next reconcile makes ${member} again once the Lease expires, or release it with --force, which waits for that and takes it over`,
		);
	opts.onProgress?.(
		`${member}: waiting up to ${left} s for the reconciler Lease (${workText(lease)}) to expire`,
	);
	let seen = lease;
	for (;;) {
		await sleep(FORCE_POLL_MS, ctx.signal);
		if (ctx.signal?.aborted)
			throw new PoolError('failed', `release of ${member} abandoned while waiting for its Lease`);
		const now = await readLease(ctx, member);
		if (!now) return null;
		if (!heldByReconciler(now))
			throw new PoolError(
				'busy',
				`the Lease of ${member} changed while waiting for it (now held by ${bounded(leaseHolder(now)) || 'nobody'}); run release again`,
			);
		if (now.metadata.resourceVersion !== seen.metadata.resourceVersion)
			throw new PoolError(
				'busy',
				`${member} is being worked on by a live process: it renewed its reconciler Lease just now, ${workText(now)}; wait for it to finish, then release ${member} again if it is still claimed`,
			);
		seen = now;
		if (leaseExpired(now, ctx.now())) return now;
	}
}
