/**
 * The console's claim feeds (poolWatchFeeds) route what its watch brings by namespace and pool
 * label; a hostile object (null, labels of the wrong type, a huge name) is passed by, never
 * thrown on.
 */

import { describe, expect, it } from 'vitest';
import { poolWatchFeeds } from '../../source/engine/index.js';
import type { KubeObject } from '../../source/kube/objects.js';

const pod = (namespace: unknown, pool: unknown, name: unknown) =>
	({
		kind: 'Pod',
		metadata: { name, namespace, labels: { 'corral.dev/vdi-ct-pool': pool } },
	}) as unknown as KubeObject;

describe('poolWatchFeeds', () => {
	it('routes by namespace and pool, and passes hostile objects by', () => {
		const feeds = poolWatchFeeds();
		const hostile = [
			null,
			{ kind: 'Pod', metadata: { name: 'x', labels: 'not a map' } },
			{ kind: 'Pod', metadata: 7 },
			pod('team-a', 42, 'desk-9'),
			pod('team-a', '', 'desk-8'),
		] as unknown as KubeObject[];
		const objects = [pod('team-a', 'desk', 'desk-1'), pod('team-b', 'desk', 'desk-1'), ...hostile];
		expect(() =>
			feeds.sink.onBatch([
				{ kind: 'pods', op: 'reset', objects },
				{ kind: 'pods', op: 'upsert', object: null as unknown as KubeObject },
				{ kind: 'pods', op: 'upsert', object: pod(`${'n'.repeat(100_000)}\n`, 'desk', 'desk-2') },
			]),
		).not.toThrow();
		const a = feeds.feed('team-a', 'desk').objects();
		const b = feeds.feed('team-b', 'desk').objects();
		expect(a.pods).toHaveLength(1);
		expect(b.pods).toHaveLength(1);
		expect(a.pods[0]).not.toBe(b.pods[0]);
		// not synced until every kind is listed and the watch says so
		expect(feeds.feed('team-a', 'desk').synced()).toBe(false);
		for (const kind of ['configmaps', 'persistentvolumeclaims', 'leases'] as const)
			feeds.sink.onBatch([{ kind, op: 'reset', objects: [] }]);
		const synced = { phase: 'synced', since: 0 } as const;
		feeds.sink.onConnection(synced, {
			pods: synced,
			persistentvolumeclaims: synced,
			leases: synced,
			configmaps: synced,
		});
		expect(feeds.feed('team-a', 'desk').synced()).toBe(true);
		// a pool first asked for now starts with every kind listed, and nothing of its own
		expect(feeds.feed('team-c', 'lab').synced()).toBe(true);
		expect(feeds.feed('team-c', 'lab').objects().pods).toEqual([]);
	});
});
