/** Claims and the reconciler's hold on a member, as Leases. */

import { RECONCILER_IDENTITY } from './errors.js';
import { type LeaseObject, toMillis } from './objects.js';

/** How long a user's claim lasts. */
export const CLAIM_SECONDS = 3600;
/** How long the reconciler's Lease lasts before another reconciler may take it over. */
export const RECONCILER_SECONDS = 600;

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
