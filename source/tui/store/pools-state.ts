/** The pools' slice of the console state: every pool derived from the cluster index, and what was seen of each over time. */

import type { PoolDerivation } from '../model/pool-derivation.js';
import type { PoolHistory } from '../model/pool-history.js';

/** The pools' state. */
export interface PoolsState {
	/** The pools by key (the name, or `namespace/name` across namespaces), sorted. */
	poolNames: readonly string[];
	pools: Readonly<Record<string, PoolDerivation>>;
	/** What the console has seen of each pool over time (sparkline, exhaustion), by key. */
	history: Readonly<Record<string, PoolHistory>>;
}

/** No pool yet. */
export function initialPoolsState(): PoolsState {
	return { poolNames: [], pools: {}, history: {} };
}
