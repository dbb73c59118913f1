/** The state of a watch connection, and how several combine into one. */

/** Where a watch stands; `since` is when it entered that phase (ms since the epoch). */
export type ConnectionState =
	| { phase: 'connecting'; since: number }
	| { phase: 'synced'; since: number }
	| { phase: 'reconnecting'; since: number; attempts: number; lastError: string }
	/** Permanent-looking (401/403/404); still retried slowly. */
	| { phase: 'failed'; since: number; attempts: number; reason: string };

const RANK: Record<ConnectionState['phase'], number> = {
	synced: 0,
	connecting: 1,
	reconnecting: 2,
	failed: 3,
};

/**
 * The worst of several states ('failed' > 'reconnecting' > 'connecting' > 'synced'): the
 * earliest trouble among the worst phase, or for all synced the latest to become synced.
 */
export function worstState(states: ConnectionState[]): ConnectionState {
	let worst: ConnectionState | undefined;
	for (const s of states) {
		if (!worst || RANK[s.phase] > RANK[worst.phase]) worst = s;
		else if (RANK[s.phase] === RANK[worst.phase]) {
			if (s.phase === 'synced' ? s.since > worst.since : s.since < worst.since) worst = s;
		}
	}
	return worst ?? { phase: 'connecting', since: Date.now() };
}

/** Whether two states would read the same to a person (same phase, since, attempts, text). */
export function sameState(a: ConnectionState, b: ConnectionState): boolean {
	if (a.phase !== b.phase || a.since !== b.since) return false;
	if (a.phase === 'reconnecting' && b.phase === 'reconnecting')
		return a.attempts === b.attempts && a.lastError === b.lastError;
	if (a.phase === 'failed' && b.phase === 'failed')
		return a.attempts === b.attempts && a.reason === b.reason;
	return true;
}
