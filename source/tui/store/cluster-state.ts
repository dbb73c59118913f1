/** The cluster index's slice of the console state: the clock, the watch's connection, which kinds are listed, what does not read. */

import type { ConnectionState, WatchKind } from '../../kube/pool-watch.js';

/** The cluster index's state. */
export interface ClusterState {
	now: number;
	connection: ConnectionState;
	connectionByKind: Partial<Record<WatchKind, ConnectionState>>;
	/** The kinds whose first list has arrived: until then their figures are not known. */
	listed: Partial<Record<WatchKind, true>>;
	/** What the API said when it last refused the credentials (401/403) to an operation or a reconcile; null once one succeeds. */
	authProblem: string | null;
	/** Increases with every applied batch. */
	revision: number;
	/** The watched objects that do not read, one line each (left out of every pool; see object-problems.ts). */
	unreadable: readonly string[];
}

/** The cluster index's first state: connecting, nothing listed. */
export function initialClusterState(now: number): ClusterState {
	return {
		now,
		connection: { phase: 'connecting', since: now },
		authProblem: null,
		connectionByKind: {},
		listed: {},
		revision: 0,
		unreadable: [],
	};
}
