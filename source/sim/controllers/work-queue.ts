/**
 * The simulated controllers' work queue: the shared de-duplicating queue, taking every
 * waiting key in one batch on the next turn of the event loop, outside the store's write,
 * with a controller's errors kept instead of thrown.
 */

import { WorkQueue } from '../../controller/work-queue.js';
import type { ControllerErrors } from './controller-errors.js';

export type { WorkQueue } from '../../controller/work-queue.js';

/** A queue whose batches run `handle` and whose errors go to `errors` under `where`. */
export function controllerQueue(
	handle: (keys: string[]) => void,
	errors: ControllerErrors,
	where: string,
): WorkQueue<string> {
	return new WorkQueue<string>({ handle, onError: (err) => errors.report(where, err) });
}
