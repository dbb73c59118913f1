import type { ExpiredClaim } from '../../engine/release-expired.js';
import type { BulkAction } from '../store/store.js';

/** What the console's keys ask of the cluster. Each starts in the background and never throws. */
export interface ConsoleOperations {
	/** Claims a free member of the pool for the identity. */
	claim(pool: string, identity: string): void;
	/** Releases a member with --force (its data is destroyed and it is made again). */
	release(pool: string, member: string): void;
	/** Reconciles the pool once. */
	reconcile(pool: string): void;
	/** Turns the live reconcile loop on (for the pool) or off. */
	toggleLoop(pool: string | null): void;
	/** Turns maintenance on (with the reason) or off for a member. */
	maintenance(pool: string, member: string, on: boolean, reason?: string): void;
	/**
	 * Releases with --force, or sets or clears maintenance on, each member in turn; the outcome
	 * is reported member by member (a failure does not stop the others).
	 */
	bulk(pool: string, action: BulkAction, members: readonly string[], reason: string): void;
	/**
	 * Releases with --force each expired claim, in whatever pool and namespace it is; a claim
	 * renewed since it was listed is left alone; the outcome is reported claim by claim.
	 */
	releaseExpired(claims: readonly ExpiredClaim[]): void;
	/** Lists the recent Events of a member, and reads what its hint needs, for the details screen. */
	loadEvents(member: string): void;
	/** Follows a member's container log (the previous container's with previous) into the log view. */
	followLog(member: string, previous: boolean): void;
	/** Stops following the container log. */
	stopLog(): void;
}

/** Operations that do nothing (a console with no cluster behind it, for tests). */
export const NO_OPERATIONS: ConsoleOperations = {
	claim() {},
	release() {},
	reconcile() {},
	toggleLoop() {},
	maintenance() {},
	bulk() {},
	releaseExpired() {},
	loadEvents() {},
	followLog() {},
	stopLog() {},
};
