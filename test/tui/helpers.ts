/** Stores filled with fixture pools, for console tests. */

import type { KubeObject } from '../../source/kube/objects.js';
import type { PoolSpec } from '../../source/pool/index.js';
import {
	type ConsoleSession,
	type ConsoleStore,
	createConsoleStore,
} from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, NOW, upserts } from './fixtures.js';

/** A synced store on pool desk with the given objects (the definition added). */
export function storeWith(
	objects: KubeObject[],
	opts: {
		spec?: PoolSpec;
		pool?: string | null;
		session?: Partial<ConsoleSession>;
		status?: unknown;
	} = {},
): ConsoleStore {
	const s = opts.spec ?? poolSpec();
	const store = createConsoleStore({
		session: { namespace: 'corral', context: 'sim', ...opts.session },
		pool: opts.pool === undefined ? 'desk' : opts.pool,
		now: NOW,
	});
	store.getState().setConnection({ phase: 'synced', since: NOW });
	store.getState().applyBatch(upserts([configMap('desk', s, opts.status), ...objects]));
	return store;
}

/** A synced store watching every namespace (-A) on the pools screen, the objects applied as they are. */
export function storeAcross(objects: KubeObject[]): ConsoleStore {
	const store = createConsoleStore({
		session: { namespace: 'corral', context: 'sim', allNamespaces: true },
		now: NOW,
	});
	store.getState().setConnection({ phase: 'synced', since: NOW });
	store.getState().applyBatch(upserts(objects));
	return store;
}

/** The lines of a frame. */
export function lines(frame: string): string[] {
	return frame.split('\n');
}

/** The frame line that contains text, or ''. */
export function lineWith(frame: string, text: string): string {
	return lines(frame).find((l) => l.includes(text)) ?? '';
}

/** Records the calls made to console operations. */
export function recordingOps() {
	const calls: Array<[string, ...unknown[]]> = [];
	return {
		calls,
		ops: {
			claim: (...a: unknown[]) => void calls.push(['claim', ...a]),
			release: (...a: unknown[]) => void calls.push(['release', ...a]),
			reconcile: (...a: unknown[]) => void calls.push(['reconcile', ...a]),
			toggleLoop: (...a: unknown[]) => void calls.push(['toggleLoop', ...a]),
			maintenance: (...a: unknown[]) => void calls.push(['maintenance', ...a]),
			bulk: (...a: unknown[]) => void calls.push(['bulk', ...a]),
			releaseExpired: (...a: unknown[]) => void calls.push(['releaseExpired', ...a]),
			loadEvents: (...a: unknown[]) => void calls.push(['loadEvents', ...a]),
			followLog: (...a: unknown[]) => void calls.push(['followLog', ...a]),
			stopLog: (...a: unknown[]) => void calls.push(['stopLog', ...a]),
		},
	};
}
