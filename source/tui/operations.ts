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
	/** Turns maintenance on or off for a member. */
	maintenance(pool: string, member: string, on: boolean): void;
	/** Lists the recent Events of a member, and reads what its hint needs, for the details screen. */
	loadEvents(member: string): void;
}

/** Operations that do nothing (a console with no cluster behind it, for tests). */
export const NO_OPERATIONS: ConsoleOperations = {
	claim() {},
	release() {},
	reconcile() {},
	toggleLoop() {},
	maintenance() {},
	loadEvents() {},
};
