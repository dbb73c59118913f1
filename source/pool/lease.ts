/** Claims and the reconciler's hold on a member, as Leases. */

import { RECONCILER_IDENTITY } from './errors.js';
import { type LeaseObject, toMillis } from './objects.js';

/** How long a user's claim lasts. */
export const CLAIM_SECONDS = 3600;
/** How long the reconciler's Lease lasts before another reconciler may take it over. */
export const RECONCILER_SECONDS = 600;

/** The holder of a Lease ('' when it has none). */
export function leaseHolder(lease: LeaseObject | null | undefined): string {
	return lease?.spec?.holderIdentity ?? '';
}

/** True when the reconciler holds the Lease. */
export function heldByReconciler(lease: LeaseObject | null | undefined): boolean {
	return leaseHolder(lease) === RECONCILER_IDENTITY;
}

/** When the Lease expires (ms): (renewTime or acquireTime) + leaseDurationSeconds. */
export function leaseExpiry(lease: LeaseObject): number | null {
	const from = toMillis(lease.spec?.renewTime) ?? toMillis(lease.spec?.acquireTime);
	const duration = lease.spec?.leaseDurationSeconds;
	if (from === null || typeof duration !== 'number') return null;
	return from + duration * 1000;
}

/**
 * True when the Lease has expired at now. A Lease with no readable time or duration counts
 * as expired: nobody renews it, and treating it as live forever would strand the member.
 * An expired claim still protects the member; only the reconciler's Lease is taken over.
 */
export function leaseExpired(lease: LeaseObject, now: number): boolean {
	const expiry = leaseExpiry(lease);
	return expiry === null || now >= expiry;
}

/** A Lease time as the API wants it: RFC 3339 with exactly six fractional digits. */
export function formatMicroTime(ms: number): string {
	const iso = new Date(ms).toISOString(); // 2026-11-29T10:00:00.123Z
	return `${iso.slice(0, 23)}000Z`;
}
