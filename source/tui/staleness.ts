/** What the header and the stale banner say about the watch connection. */

import type { ConnectionState } from '../kube/pool-watch.js';
import { clockTime, formatAge } from './age.js';

/** How long the watches may be down before the table is marked stale. */
export const STALE_AFTER_MS = 2000;

/** The connection as the console shows it. */
export interface ConnectionView {
	/** Short label for the header. */
	label: string;
	tone: 'ok' | 'warn' | 'error';
	/** The table may be out of date. */
	stale: boolean;
	/** The banner text while stale, else null. */
	banner: string | null;
}

/** The connection state at now, as the header and banner show it. */
export function connectionView(c: ConnectionState, now: number): ConnectionView {
	const downFor = now - c.since;
	switch (c.phase) {
		case 'synced':
			return { label: '● live', tone: 'ok', stale: false, banner: null };
		case 'connecting': {
			const stale = downFor >= STALE_AFTER_MS;
			return {
				label: `◌ connecting ${formatAge(downFor)}`,
				tone: 'warn',
				stale,
				banner: stale
					? `not synced since ${clockTime(c.since)}: still connecting to the cluster`
					: null,
			};
		}
		case 'reconnecting': {
			const stale = downFor >= STALE_AFTER_MS;
			return {
				label: `◌ reconnecting (retry ${c.attempts})`,
				tone: 'warn',
				stale,
				banner: stale
					? `stale since ${clockTime(c.since)} · retry ${c.attempts} · last error: ${c.lastError}`
					: null,
			};
		}
		case 'failed':
			return {
				label: `✕ watch failed (retry ${c.attempts})`,
				tone: 'error',
				stale: true,
				banner: `stale since ${clockTime(c.since)} · retry ${c.attempts} · ${c.reason}`,
			};
	}
}
