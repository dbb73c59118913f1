/**
 * The console's watch of the pool objects, which can start before the console's own modules
 * load: its lists are on their way while React and Ink load, and what they bring is kept
 * until the console attaches.
 */

import type { Kube } from '../../kube/config.js';
import {
	DeferredSink,
	type PoolWatch,
	type PoolWatchSink,
	startPoolWatch,
} from '../../kube/pool-watch.js';
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
}

/** Starts watching the pool objects of the kube's namespace (or of every namespace). */
export function startConsoleWatch(kube: Kube, allNamespaces: boolean): ConsoleWatch {
	const onScreen = new OnScreen();
	const sink = new DeferredSink();
	const watch = startPoolWatch(
		kube,
		{
			...(allNamespaces ? {} : { namespace: kube.namespace }),
			// each batch is one store update and one frame
			batchMs: WATCH_BATCH_MS,
			urgentBatchMs: URGENT_BATCH_MS,
			urgent: (change) => onScreen.urgent(change),
		},
		sink,
	);
	return { watch, onScreen, attach: (target) => sink.attach(target) };
}
