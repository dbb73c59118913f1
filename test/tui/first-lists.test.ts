/**
 * The pools while the watch's first lists come in (issue 27, scale): a pool not open holds its
 * definition only until the last member list is in, then its members are derived once, as a
 * full derivation would; opening it, a find, or a member list that fails derives them at once.
 */

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../source/kube/objects.js';
import type { WatchChange, WatchKind } from '../../source/kube/pool-watch.js';
import { markExpired } from '../../source/tui/commands/mark-expired.js';
import { ObjectIndex } from '../../source/tui/model/object-index.js';
import { derivePool } from '../../source/tui/model/pool-derivation.js';
import { PoolIndex } from '../../source/tui/model/pool-index.js';
import { type ConsoleStore, createConsoleStore } from '../../source/tui/store/store.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, inNamespace, member, NOW, upserts } from './fixtures.js';
import { recordingOps } from './helpers.js';

const s = poolSpec({ size: 3 });

const KIND_OF: Record<string, WatchKind> = {
	Pod: 'pods',
	PersistentVolumeClaim: 'persistentvolumeclaims',
	Lease: 'leases',
	ConfigMap: 'configmaps',
};

/** Every object of the pools desk and lab (3 members each, desk-2 claimed). */
function objects(): KubeObject[] {
	return [
		configMap('desk', s),
		configMap('lab', s),
		...member('desk', 1, s),
		...member('desk', 2, s, { holder: 'alice@example.com' }),
		...member('desk', 3, s, { state: 'Unschedulable' }),
		...member('lab', 1, s),
		...member('lab', 2, s),
	];
}

/** The list (reset) of one kind, of the objects given. */
function list(kind: WatchKind, all: KubeObject[]): WatchChange {
	return { kind, op: 'reset', objects: all.filter((o) => KIND_OF[o.kind ?? ''] === kind) };
}

function consoleStore(pool: string | null = null): ConsoleStore {
	return createConsoleStore({ session: { namespace: 'corral', context: 'sim' }, pool, now: NOW });
}

/** The rows of a pool as text, to compare with a full derivation. */
function rowsOf(store: ConsoleStore, pool: string): string[] {
	return (store.getState().pools[pool]?.rows ?? []).map((r) => `${r.name}:${r.state}:${r.holder}`);
}

function fullRows(all: KubeObject[], pool: string): string[] {
	const index = new ObjectIndex();
	index.apply(upserts(all));
	return derivePool(index, pool, NOW).rows.map((r) => `${r.name}:${r.state}:${r.holder}`);
}

describe('the first lists', () => {
	it('leave a pool not open with its definition only until the last member list, then derive it once', () => {
		const all = objects();
		const store = consoleStore();
		store.getState().applyBatch([list('configmaps', all)]);
		store.getState().applyBatch([list('persistentvolumeclaims', all)]);
		const desk = store.getState().pools.desk;
		expect(desk?.membersPending).toBe(true);
		expect(desk?.spec?.size).toBe(3);
		expect(desk?.rows).toEqual([]);
		expect(store.getState().poolNames).toEqual(['desk', 'lab']);
		store.getState().applyBatch([list('leases', all)]);
		expect(store.getState().pools.desk?.membersPending).toBe(true);
		store.getState().applyBatch([list('pods', all)]);
		for (const pool of ['desk', 'lab']) {
			expect(store.getState().pools[pool]?.membersPending).toBeUndefined();
			expect(rowsOf(store, pool)).toEqual(fullRows(all, pool));
		}
		expect(store.getState().pools.desk?.counts).toMatchObject({ observed: 3, claimed: 1 });
		// later changes are derived member by member, as before
		store.getState().applyBatch(upserts(member('lab', 2, s, { holder: 'bob@example.com' })));
		expect(rowsOf(store, 'lab')).toContain('lab-2:Ready:bob@example.com');
	});

	it('derive the open pool from each list as it comes', () => {
		const all = objects();
		const store = consoleStore('desk');
		store.getState().applyBatch([list('configmaps', all), list('persistentvolumeclaims', all)]);
		expect(store.getState().pools.desk?.membersPending).toBeUndefined();
		expect(store.getState().pools.desk?.rows.length).toBe(3);
		expect(store.getState().pools.lab?.membersPending).toBe(true);
	});

	it('derive a waiting pool as it opens, and every waiting pool for a find', () => {
		const all = objects();
		const store = consoleStore();
		store.getState().applyBatch([list('configmaps', all), list('pods', all)]);
		store.getState().openPool('desk');
		expect(store.getState().pools.desk?.membersPending).toBeUndefined();
		expect(store.getState().pools.desk?.rows.map((r) => r.name)).toEqual([
			'desk-1',
			'desk-2',
			'desk-3',
		]);
		expect(store.getState().pools.lab?.membersPending).toBe(true);
		store.getState().setFind('lab-2');
		expect(store.getState().pools.lab?.membersPending).toBeUndefined();
		// derived once, it is kept up to date by the next lists
		store.getState().applyBatch([list('leases', all)]);
		store.getState().applyBatch([list('persistentvolumeclaims', all)]);
		expect(rowsOf(store, 'lab')).toEqual(fullRows(all, 'lab'));
		expect(rowsOf(store, 'desk')).toEqual(fullRows(all, 'desk'));
	});

	it('derive the waiting pools when a member list fails (it may never come)', () => {
		const all = objects();
		const store = consoleStore();
		store.getState().applyBatch([list('configmaps', all), list('pods', all)]);
		expect(store.getState().pools.desk?.membersPending).toBe(true);
		store
			.getState()
			.setConnection(
				{ phase: 'failed', since: NOW, attempts: 1, reason: 'forbidden' },
				{ leases: { phase: 'failed', since: NOW, attempts: 1, reason: 'forbidden' } },
			);
		expect(store.getState().pools.desk?.membersPending).toBeUndefined();
		expect(store.getState().pools.desk?.rows.length).toBe(3);
		// and the next list derives them as they come
		store.getState().applyBatch([list('persistentvolumeclaims', all)]);
		expect(store.getState().pools.desk?.membersPending).toBeUndefined();
	});

	it('* on the pools screen says the members are still being listed, not that none expired', () => {
		const all = objects();
		const store = consoleStore();
		store.getState().applyBatch([list('configmaps', all), list('pods', all)]);
		expect(store.getState().pools.desk?.membersPending).toBe(true);
		const ctx = { store, ops: recordingOps().ops, exit() {}, pageSize: () => 10 };
		markExpired.run(ctx);
		expect(store.getState().status?.text).toBe(
			'the members are still being listed: * again once the counts show',
		);
		store.getState().applyBatch([list('persistentvolumeclaims', all), list('leases', all)]);
		markExpired.run(ctx);
		expect(store.getState().status?.text).toBe('no member of the shown pools has an expired claim');
	});

	it('never wait without a list: changes alone derive the pools at once', () => {
		const store = consoleStore();
		store.getState().applyBatch(upserts(objects()));
		expect(store.getState().pools.desk?.membersPending).toBeUndefined();
		expect(store.getState().pools.desk?.rows.length).toBe(3);
	});

	it('keep a pool by its label in the index: moving an object to another pool moves it', () => {
		const index = new PoolIndex(true);
		const pod = inNamespace('team-a', member('desk', 1, s))[1]!;
		index.apply([{ kind: 'pods', op: 'upsert', object: pod }]);
		expect(index.poolKeys()).toEqual(['team-a/desk']);
		const moved = {
			...pod,
			metadata: {
				...pod.metadata,
				labels: { ...pod.metadata.labels, 'corral.dev/vdi-ct-pool': 'lab' },
			},
		};
		index.apply([{ kind: 'pods', op: 'upsert', object: moved }]);
		expect(index.poolKeys()).toEqual(['team-a/lab']);
		expect(index.resolve('team-a/desk').index.poolObjects('desk').pods).toEqual([]);
		expect(index.resolve('team-a/lab').index.poolObjects('lab').pods.length).toBe(1);
		index.apply([{ kind: 'pods', op: 'delete', object: moved }]);
		expect(index.poolKeys()).toEqual([]);
		expect(index.listed('pods')).toBe(false);
		index.apply([{ kind: 'pods', op: 'reset', objects: [pod] }]);
		expect(index.listed('pods')).toBe(true);
		expect(index.poolKeys()).toEqual(['team-a/desk']);
	});
});
