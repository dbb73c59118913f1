/** Exec into a simulated pod over WebSocket (v5.channel.k8s.io, v4.channel.k8s.io). */

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SimClusterConfig } from './config.js';
import type { SimApiError, SimStore } from './store-api.js';

/** What the HTTP layer hands over for one exec request, after authentication and routing. */
export interface ExecContext {
	store: SimStore;
	config: SimClusterConfig;
	namespace: string;
	pod: string;
	query: URLSearchParams;
}

/**
 * The error an exec request gets before any upgrade: 404 for a missing pod, 400 for a pod
 * that is not running or a container it lacks; null when the exec may proceed.
 * (Stub: replaced by the real exec.)
 */
export function execPreflight(_ctx: ExecContext): SimApiError | null {
	return null;
}

/** Completes the WebSocket upgrade and runs the simulated shell. (Stub.) */
export function execUpgrade(
	_req: IncomingMessage,
	socket: Duplex,
	_head: Buffer,
	_ctx: ExecContext,
): void {
	socket.destroy();
}
