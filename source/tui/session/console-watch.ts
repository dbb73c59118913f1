/**
 * The console's watch of the pool objects, which can start before the console's own modules
 * load: its lists are on their way while React and Ink load, and what they bring is kept
 * until the console attaches.
 */

import { definedPool } from '../../engine/list-definitions.js';
import type { Kube } from '../../kube/config.js';
import type { KubeObject } from '../../kube/objects.js';
import {
	DeferredSink,
	type PoolWatch,
	type PoolWatchSink,
	startPoolWatch,
} from '../../kube/pool-watch.js';
import { readAhead, readBatch } from '../../kube/watch-boundary.js';
import { consoleObjectsAhead } from '../model/bounded-object.js';
import { OnScreen } from './on-screen.js';

/**
 * The shortest time between two watch batches (ms). The first change after a quiet spell is
 * shown at once; under churn, changes that only move counts are drawn about 1000 /
 * WATCH_BATCH_MS times a second, and a change to what is on screen (a row shown, any claim)
 * within URGENT_BATCH_MS of the last frame (OnScreen).
 */
const WATCH_BATCH_MS = 100;
const URGENT_BATCH_MS = 16;

/** A started console watch, waiting for the console to attach. */
export interface ConsoleWatch {
	watch: PoolWatch;
	/** Which members' rows are on screen: the console's store (its showMembers action) writes them here. */
	onScreen: OnScreen;
	/** Hands what was heard so far, and all that follows, to the console. */
	attach(sink: PoolWatchSink): void;
	/**
	 * The pools defined in the namespace as the watch's first list of ConfigMaps names them
	 * (read through the watch's boundary), sorted; null when that list failed (the caller asks
	 * the API itself, and gets its error), or across namespaces. The console's check that its
	 * pool exists needs no request of its own.
	 */
	definedPools: Promise<string[] | null>;
	/**
	 * Resolves once every kind is listed, or as soon as a list fails (the watch tries again;
	 * the console shows why): the console's first frame can wait for the whole picture.
	 */
	firstLists: Promise<void>;
}

/** Starts watching the pool objects of the kube's namespace (or of every namespace). */
export function startConsoleWatch(kube: Kube, allNamespaces: boolean): ConsoleWatch {
	const onScreen = new OnScreen();
	const sink = new DeferredSink();
	let settle: (pools: string[] | null) => void = () => {};
	const definedPools = new Promise<string[] | null>((resolve) => {
		settle = (pools) => {
			settle = () => {};
			resolve(pools);
		};
	});
	if (allNamespaces) settle(null);
	let listed: () => void = () => {};
	const firstLists = new Promise<void>((resolve) => {
		listed = resolve;
	});
	const tap: PoolWatchSink = {
		onBatch: (changes) => sink.onBatch(changes),
		onConnection(overall, byKind) {
			// every kind listed (the lists are in the sink by now), or one failed
			if (overall.phase !== 'connecting') listed();
			// the first list of ConfigMaps failed: the watch tries again; the check asks itself
			const phase = byKind.configmaps?.phase;
			if (phase === 'reconnecting' || phase === 'failed') settle(null);
			sink.onConnection(overall, byKind);
		},
	};
	const watch = startPoolWatch(
		kube,
		{
			...(allNamespaces ? {} : { namespace: kube.namespace }),
			// each batch is one store update and one frame
			batchMs: WATCH_BATCH_MS,
			urgentBatchMs: URGENT_BATCH_MS,
			urgent: (change) => onScreen.urgent(change),
			onList: (kind, objects) => {
				if (kind === 'configmaps') settle(poolsOf(objects));
			},
			// the boundary and the bounding of each listed object, while the next page comes
			onListPage: (kind, objects) => consoleObjectsAhead(kind, readAhead(kind, objects)),
		},
		tap,
	);
	return {
		watch,
		onScreen,
		attach: (target) => sink.attach(target),
		definedPools,
		firstLists,
	};
}

/** The pools a list of ConfigMaps defines (only what reads at the boundary), sorted. */
function poolsOf(objects: readonly KubeObject[]): string[] {
	const pools: string[] = [];
	for (const change of readBatch([{ kind: 'configmaps', op: 'reset', objects: [...objects] }])
		.changes)
		if (change.op === 'reset')
			for (const cm of change.objects) {
				const pool = definedPool(cm);
				if (pool) pools.push(pool);
			}
	return pools.sort((a, b) => a.localeCompare(b));
}
