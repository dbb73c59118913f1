/**
 * release: the user is done. The claim is handed to the reconciler (CAS), the member is
 * destroyed and created again from the current source, and the Lease is deleted.
 */

import { PoolError, RECONCILER_IDENTITY } from '../pool/errors.js';
import {
	heldByReconciler,
	leaseExpired,
	leaseHolder,
	leaseTimeProblem,
	RECONCILER_SECONDS,
} from '../pool/lease.js';
import { strandedWayOut } from '../pool/member-state.js';
import { MAINTENANCE_ANNOTATION, memberIndex, memberName, pvcName } from '../pool/names.js';
import type { LeaseObject } from '../pool/objects.js';
import { sourceFields } from '../pool/spec.js';
import { bounded, sanitize } from '../text/sanitize.js';
import { checkIdentity } from './claim.js';
import { changingPool } from './claim-snapshot.js';
import { checkPoolName, failureText } from './cluster-error.js';
import { type EngineContext, emitEvent } from './context.js';
import { readDefinition } from './definition.js';
import { checkOwned, ForeignObjectError, readService } from './foreign-objects.js';
import { flushKubeEvents, recordAudit } from './kube-event.js';
import { deleteLease, readLease, replaceLease } from './member-lease.js';
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
export function noSuchMemberMessage(pool: string, member: string, size: number): string {
	const range =
		size === 0
			? 'it has no members (its size is 0)'
			: size === 1
				? `its only member is ${memberName(pool, 1)}`
				: `its members are ${memberName(pool, 1)} to ${memberName(pool, size)}`;
	return `pool ${pool} has no member ${bounded(member)}: ${range}; ctpool status ${pool} lists them`;
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
	const lease = await readLease(ctx, member);
	// Nothing under the member's name that is not the pool's is ever touched: checked before
	// the first write (the destroy checks each object again, with preconditions).
	checkOwned(pool, member, [['Lease', lease]]);
	if (!lease && !(await memberExists(ctx, pool, member, index, spec.size)))
		throw new PoolError('not-found', noSuchMemberMessage(pool, member, spec.size));
	if (!lease) {
		const message = `${member} has no claim; nothing to do`;
		emitEvent(ctx, { pool, member, action: 'release', outcome: 'info', message });
		return { released: false, recreated: false, message };
	}
	const holder = leaseHolder(lease);
	const shown = holder ? bounded(holder) : '(no holder)';
	if (opts.expiredOf !== undefined) checkStillExpired(member, lease, opts.expiredOf, ctx.now());
	const stranded = leaseTimeProblem(lease, ctx.now());
	if (heldByReconciler(lease)) {
		if (stranded && !opts.force)
			throw new PoolError(
				'not-holder',
				`${member}: ${stranded}; ${strandedWayOut({ name: member })}`,
			);
		if (!stranded && !leaseExpired(lease, ctx.now()))
			throw new PoolError(
				'busy',
				`${member} is being reconciled right now (${RECONCILER_IDENTITY} holds its Lease); try again in a moment`,
			);
		if (!stranded && !opts.force)
			throw new PoolError(
				'not-holder',
				`${member} is held by a reconciler that stopped mid-step (its Lease has expired); the next reconcile takes it over, or release it with --force`,
			);
	} else if (holder !== identity && !opts.force) {
		throw new PoolError(
			'not-holder',
			holder
				? `${member} is claimed by ${shown}, not by ${bounded(identity)}; only the holder can release it, or an administrator with --force`
				: `${member} has a Lease with no holder; an administrator can release it with --force`,
		);
	}
	const [objects, service] = await Promise.all([
		readMember(ctx, pool, member),
		readService(ctx, member),
	]);
	checkOwned(pool, member, [['Service', service === 'unreadable' ? null : service]]);
	emitEvent(ctx, {
		pool,
		member,
		action: 'release',
		outcome: 'start',
		message: `releasing ${member} (claimed by ${shown})${holder !== identity ? ' with --force' : ''}`,
	});
	const held = await replaceLease(ctx, lease, {
		holder: RECONCILER_IDENTITY,
		durationSeconds: RECONCILER_SECONDS,
		transfer: true,
	});
	if (!held)
		throw new PoolError(
			'busy',
			`the claim on ${member} changed while releasing it; run release again`,
		);
	// One account of the act for every Event of this release: who held it, who named whom.
	const act = {
		member,
		...(holder ? { holder } : {}),
		identity,
		...(holder !== identity ? { force: true } : {}),
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
		// at once instead of in 10 minutes, so the next reconcile takes it over and makes the
		// member again from the image; until then nobody can claim it.
		const expired = await replaceLease(ctx, held, {
			holder: RECONCILER_IDENTITY,
			durationSeconds: 1,
			transfer: false,
		}).catch(() => null);
		const failure = expired
			? `release of ${member} abandoned while ${destroyError}; its Lease expires at once, so the next reconcile makes it again`
			: `release of ${member} abandoned while ${destroyError}; its reconciler Lease expires in 10 minutes, then the next reconcile makes it again`;
		emitEvent(ctx, { pool, member, action: 'release', outcome: 'error', message: failure });
		throw new PoolError('failed', failure);
	}
	if (destroyError) {
		quarantined = await quarantine(ctx, pool, member, identity, destroyError);
	} else if (index <= spec.size) {
		opts.onProgress?.(`creating ${member} again from ${spec.image}`);
		try {
			await createMember(ctx, pool, member, sourceFields(spec));
			recreated = true;
		} catch (err) {
			recreateError = failureText(err);
		}
	}
	let leaseError = '';
	try {
		// A member that may still hold the old desktop and could not be marked keeps the
		// reconciler's Lease: nobody can claim it, and once the Lease expires the next
		// reconcile takes it over and makes the member again from the image.
		if (destroyError && !quarantined)
			leaseError =
				'it could not be put in maintenance either, so the reconciler keeps its Lease: nobody can claim it, and in 10 minutes the next reconcile makes it again from the image';
		else if (!(await deleteLease(ctx, held)))
			leaseError = 'its Lease changed hands meanwhile and was left to its new holder';
	} catch (err) {
		leaseError = `its Lease could not be removed (it expires in 10 minutes, then the next reconcile takes it over): ${failureText(err)}`;
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
		failure = `release of ${member}: ${destroyError}; it is now in maintenance so that nobody gets the old desktop: delete pod ${member} and PVC ${pvcName(member)} (kubectl delete pod ${member}; kubectl delete pvc ${pvcName(member)}), and the next reconcile makes it again${extra}`;
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
