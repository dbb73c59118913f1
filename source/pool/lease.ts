/** Claims and the reconciler's hold on a member, as Leases. */

import { createHash } from 'node:crypto';
import { RECONCILER_IDENTITY } from './errors.js';
import { type LeaseObject, toMillis } from './objects.js';

/** How long a user's claim lasts. */
export const CLAIM_SECONDS = 3600;
/**
 * The longest a reconciler Lease may last (the seed's 10 minutes; what older ctpool builds
 * wrote, without renewing it). A longer one is a problem (leaseTimeProblem).
 */
export const RECONCILER_SECONDS = 600;
/**
 * How long the reconciler Lease ctpool writes lasts: it is renewed every
 * RECONCILER_RENEW_MS while its holder works (as client-go's leader election renews its
 * Lease), so a holder that was killed mid-step leaves a member for at most this long.
 */
export const RECONCILER_LEASE_SECONDS = 20;
/** How often a working holder renews its reconciler Lease. */
export const RECONCILER_RENEW_MS = 5_000;

/** The most characters of a Lease holder kept (an identity has at most 253; longer ones are cut). */
export const HOLDER_MAX = 1024;
/** The longest Lease duration read (s): the API's own bound (int32); a larger one is unreadable. */
export const LEASE_DURATION_MAX = 2 ** 31 - 1;

/**
 * A Lease's spec as the pool model reads it: the holder ('' when none), the times (ms; with
 * `now`, a time beyond the clock-skew allowance is clamped to now + allowance), the duration
 * (a whole number of seconds 1..LEASE_DURATION_MAX, else null) and its transitions.
 */
export interface LeaseFields {
	holder: string;
	acquireTime: number | null;
	renewTime: number | null;
	durationSeconds: number | null;
	transitions: number;
}

const EMPTY_LEASE: LeaseFields = {
	holder: '',
	acquireTime: null,
	renewTime: null,
	durationSeconds: null,
	transitions: 0,
};

function leaseTime(v: unknown, now: number | undefined): number | null {
	const t = typeof v === 'string' || v instanceof Date ? toMillis(v) : null;
	if (t === null || now === undefined) return t;
	return Math.min(t, now + CLOCK_SKEW_ALLOWANCE_MS);
}

function wholeIn(v: unknown, min: number, max: number): number | null {
	return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : null;
}

/**
 * Reads the fields of a Lease (see LeaseFields). Never throws: a field of another type reads
 * as absent, a holder longer than HOLDER_MAX is cut.
 */
export function readLease(lease: LeaseObject | null | undefined, now?: number): LeaseFields {
	const spec: unknown = lease && typeof lease === 'object' ? lease.spec : undefined;
	if (!spec || typeof spec !== 'object') return EMPTY_LEASE;
	const s = spec as Record<string, unknown>;
	const holder = typeof s.holderIdentity === 'string' ? s.holderIdentity : '';
	return {
		holder: holder.length > HOLDER_MAX ? `${holder.slice(0, HOLDER_MAX)}…` : holder,
		acquireTime: leaseTime(s.acquireTime, now),
		renewTime: leaseTime(s.renewTime, now),
		durationSeconds: wholeIn(s.leaseDurationSeconds, 1, LEASE_DURATION_MAX),
		transitions: wholeIn(s.leaseTransitions, 0, LEASE_DURATION_MAX) ?? 0,
	};
}

/** The holder of a Lease ('' when it has none). */
export function leaseHolder(lease: LeaseObject | null | undefined): string {
	return readLease(lease).holder;
}

/** True when the reconciler holds the Lease. */
export function heldByReconciler(lease: LeaseObject | null | undefined): boolean {
	return leaseHolder(lease) === RECONCILER_IDENTITY;
}

/**
 * When the Lease expires (ms): (renewTime or acquireTime) + leaseDurationSeconds; null when
 * it has no readable time or duration. With `now`, times are clamped as readLease says.
 */
export function leaseExpiry(lease: LeaseObject, now?: number): number | null {
	const l = readLease(lease, now);
	const from = l.renewTime ?? l.acquireTime;
	if (from === null || l.durationSeconds === null) return null;
	return from + l.durationSeconds * 1000;
}

/**
 * True when the Lease has expired at now. A Lease with no readable time or duration counts
 * as expired: nobody renews it, and treating it as live forever would strand the member.
 * An expired claim still protects the member; only the reconciler's Lease is taken over.
 */
export function leaseExpired(lease: LeaseObject, now: number): boolean {
	const expiry = leaseExpiry(lease, now);
	return expiry === null || now >= expiry;
}

/** A Lease time as the API wants it: RFC 3339 with exactly six fractional digits. */
export function formatMicroTime(ms: number): string {
	const iso = new Date(ms).toISOString(); // 2026-11-29T10:00:00.123Z
	return `${iso.slice(0, 23)}000Z`;
}

/**
 * How far in the future a Lease time may lie before it is reported (ms): clocks of the
 * machines that write Leases may disagree by this much. Beyond it, the writer's clock is wrong
 * and the Lease would hold its member for as long as the skew.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60_000;

/**
 * Why a Lease cannot be trusted to expire on its own, or null when its times make sense: a
 * renewTime or acquireTime beyond the clock-skew allowance in the future, or a reconciler
 * Lease whose duration is not 1..600 s.
 */
export function leaseTimeProblem(lease: LeaseObject, now: number): string | null {
	const raw = readLease(lease);
	for (const field of ['renewTime', 'acquireTime'] as const) {
		const t = raw[field];
		if (t !== null && t > now + CLOCK_SKEW_ALLOWANCE_MS)
			return `its Lease's ${field} ${new Date(t).toISOString()} is in the future (more than ${CLOCK_SKEW_ALLOWANCE_MS / 60_000} minutes ahead of this clock): the clock of whoever wrote it is wrong`;
	}
	if (raw.holder === RECONCILER_IDENTITY) {
		const d = raw.durationSeconds;
		if (d === null || d > RECONCILER_SECONDS)
			return `its reconciler Lease lasts ${d !== null ? `${d} s` : 'no time'}, not the 1..${RECONCILER_SECONDS} s a reconciler takes`;
	}
	return null;
}

/** The Lease annotation naming the step its reconciler holder works on (`release`, `replace`). */
export const LEASE_STEP_ANNOTATION = 'ctpool.corral.dev/step';
/** The Lease annotation naming the host of the process working on that step. */
export const LEASE_HOST_ANNOTATION = 'ctpool.corral.dev/step-host';

/** A step a reconciler Lease is taken for. */
export type LeaseStep = 'release' | 'create' | 'start' | 'replace' | 'delete' | 'takeover';

const LEASE_STEPS: ReadonlySet<string> = new Set([
	'release',
	'create',
	'start',
	'replace',
	'delete',
	'takeover',
]);

/** What a reconciler Lease says its holder is doing: the step and the host, as far as known. */
export interface LeaseWork {
	step: LeaseStep | null;
	/** The holder's host, cut at 64 characters ('' when not said); sanitise before showing. */
	host: string;
}

/** Reads the step annotations of a Lease (never throws; an unknown step is null). */
export function leaseWork(lease: LeaseObject): LeaseWork {
	const a = lease.metadata?.annotations;
	const step = a && typeof a === 'object' ? a[LEASE_STEP_ANNOTATION] : undefined;
	const host = a && typeof a === 'object' ? a[LEASE_HOST_ANNOTATION] : undefined;
	return {
		step: typeof step === 'string' && LEASE_STEPS.has(step) ? (step as LeaseStep) : null,
		host: typeof host === 'string' ? host.slice(0, 64) : '',
	};
}

/**
 * True when the Lease is one ctpool renews while it works (its duration is at most
 * RECONCILER_LEASE_SECONDS); an older build's 10-minute Lease is never renewed.
 */
export function renewedLease(lease: LeaseObject): boolean {
	const d = lease.spec?.leaseDurationSeconds;
	return typeof d === 'number' && d <= RECONCILER_LEASE_SECONDS;
}

/**
 * The claim Lease annotation naming the user the cluster authenticated the claimer as (a
 * SelfSubjectReview), when it could be read: a release by another user is a forced one.
 */
export const CLAIM_USER_ANNOTATION = 'ctpool.corral.dev/claimed-by-user';

/** The claimer's authenticated user recorded on a Lease, or '' (cut at 253 characters). */
export function claimUser(lease: LeaseObject): string {
	const a = lease.metadata?.annotations;
	const v = a && typeof a === 'object' ? a[CLAIM_USER_ANNOTATION] : undefined;
	return typeof v === 'string' ? v.slice(0, 253) : '';
}

/**
 * Label on a Lease written by ctpool: a digest of its holder (an identity is not a label
 * value), so that the Leases one identity holds in a pool are found by a label selector.
 * Only a way to find them: the holder itself (spec.holderIdentity) is what counts.
 */
export const HOLDER_LABEL = 'ctpool.corral.dev/holder-hash';

/** The HOLDER_LABEL value of a holder: 40 hex digits of its SHA-256. */
export function holderLabelValue(holder: string): string {
	return createHash('sha256').update(holder, 'utf8').digest('hex').slice(0, 40);
}
