/**
 * A reconciler Lease kept alive while its holder works, the way client-go's leader election
 * keeps its Lease: it lasts RECONCILER_LEASE_SECONDS and is renewed (a CAS update) every
 * RECONCILER_RENEW_MS. A holder killed mid-step (SIGKILL, a lost node) so leaves its member
 * for seconds, not minutes: the next reconcile takes the expired Lease over and makes the
 * member again, and `release --force` takes it over itself.
 */

import { RECONCILER_IDENTITY } from '../pool/errors.js';
import { RECONCILER_LEASE_SECONDS, RECONCILER_RENEW_MS } from '../pool/lease.js';
import type { LeaseObject } from '../pool/objects.js';
import type { EngineContext } from './context.js';
import { replaceLease } from './member-lease.js';

/** A Lease being renewed. */
export interface KeptLease {
	/** The Lease as last written (its resourceVersion is the one to delete or change it with). */
	current(): LeaseObject;
	/** True once a renewal found the Lease changed or gone: someone else holds it now. */
	lost(): boolean;
	/** Stops renewing; resolves once a renewal under way has ended, with the Lease as last written. */
	stop(): Promise<LeaseObject>;
}

/**
 * Renews a reconciler Lease every RECONCILER_RENEW_MS until stop(). A renewal that fails
 * (a blip) is tried again at the next tick; one that finds the Lease changed ends the
 * renewals (lost()). The timer never keeps the process alive.
 */
export function keepLease(
	ctx: EngineContext,
	lease: LeaseObject,
	renewMs: number = RECONCILER_RENEW_MS,
): KeptLease {
	let current = lease;
	let lost = false;
	let stopped = false;
	let inFlight: Promise<void> | null = null;
	let timer: NodeJS.Timeout | null = null;
	const renew = async () => {
		try {
			const next = await replaceLease(ctx, current, {
				holder: RECONCILER_IDENTITY,
				durationSeconds: RECONCILER_LEASE_SECONDS,
				transfer: false,
			});
			if (next) current = next;
			else lost = true;
		} catch {
			// a blip: the next tick tries again, well before the Lease expires
		}
	};
	const schedule = () => {
		if (stopped || lost) return;
		timer = setTimeout(() => {
			timer = null;
			inFlight = renew().finally(() => {
				inFlight = null;
				schedule();
			});
		}, renewMs);
		timer.unref();
	};
	schedule();
	return {
		current: () => current,
		lost: () => lost,
		async stop() {
			stopped = true;
			if (timer) clearTimeout(timer);
			timer = null;
			while (inFlight) await inFlight;
			return current;
		},
	};
}
