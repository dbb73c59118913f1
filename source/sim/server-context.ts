/**
 * What every part of the simulated API server shares: the store behind it, its settings,
 * the audit log, the fault switch and the open watch streams.
 */

import type { ServerResponse } from 'node:http';
import type { AuditLog } from './audit.js';
import type { SimClusterConfig } from './config.js';
import type { ContainerLogs } from './container-logs.js';
import type { FaultSwitch } from './faults.js';
import type { Store } from './store.js';

/** An open watch response, which the server can end (cleanly or abruptly). */
export interface WatchStream {
	/** The response the watch writes to. */
	res: ServerResponse;
	/** Ends the watch: abruptly destroys the socket, otherwise ends the chunked body. */
	end(abrupt: boolean): void;
}

/** The state every request handler of the simulated API server works with. */
export interface ServerContext {
	/** The object store: the single source of truth. */
	readonly store: Store;
	/** The cluster's settings (nodes, deny list, ...). */
	readonly config: SimClusterConfig;
	/** The audit log of requests and mutations. */
	readonly audit: AuditLog;
	/** The fault injection switch. */
	readonly faults: FaultSwitch;
	/** The user name RBAC messages name. */
	readonly user: string;
	/** How often a watch that allows bookmarks gets one (ms). */
	readonly bookmarkMs: number;
	/** The containers' logs, as the kubelet writes them. */
	readonly logs: ContainerLogs;
	/** The open watch streams. */
	readonly watches: Set<WatchStream>;
	/** The port the server listens on (0 before listen). */
	port(): number;
}
