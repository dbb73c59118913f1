/** What the header and the stale banner say about the watch connection. */

import type { ConnectionState } from '../../kube/pool-watch.js';
import { clockTime, formatAge } from '../../text/age.js';

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

/** 'unauthorized' or 'forbidden' when an error text says the credentials were refused, else null. */
export function authWord(text: string): 'unauthorized' | 'forbidden' | null {
	if (/\b401\b|unauthori[sz]ed/i.test(text)) return 'unauthorized';
	if (/\b403\b|forbidden/i.test(text)) return 'forbidden';
	return null;
}

/**
 * The connection as shown, with what the API said of the credentials on the last operation
 * or reconcile (401/403): refused credentials are shown as such even while the watches,
 * opened before, still stream.
 */
export function headerConnection(
	c: ConnectionState,
	authProblem: string | null,
	now: number,
): ConnectionView {
	const view = connectionView(c, now);
	const word = authProblem ? authWord(authProblem) : null;
	if (!word || view.tone === 'error') return view;
	return { ...view, label: `✕ ${word}`, tone: 'error' };
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
			// A watch restarting for a moment leaves the data current: the header says live.
			if (!stale) return { label: '● live', tone: 'ok', stale: false, banner: null };
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
				label: `✕ ${authWord(c.reason) ?? 'watch failed'} (retry ${c.attempts})`,
				tone: 'error',
				stale: true,
				banner: `stale since ${clockTime(c.since)} · retry ${c.attempts} · ${c.reason}`,
			};
	}
}
