/** A member's container log, read (and followed) through the cluster's `pods/log` API. */

import { followPodLog, type PodLogOptions } from '../kube/pod-log.js';
import type { EngineContext } from './context.js';

/**
 * Follows the container log of a member's pod (`kubectl logs -f [--previous]`), handing each
 * raw line to onLine (the caller sanitises); see followPodLog for how it ends.
 */
export function memberLog(
	ctx: EngineContext,
	member: string,
	signal: AbortSignal,
	onLine: (line: string) => void,
	opts: PodLogOptions = {},
	onOpen?: () => void,
): Promise<void> {
	return followPodLog(ctx.kube.config, ctx.namespace, member, signal, onLine, opts, onOpen);
}
