/** A pod's container log through the `pods/{name}/log` subresource, followed line by line. */

import type { KubeConfig } from '@kubernetes/client-node';
import { type LineLimit, streamLines } from './api-request.js';

/** The longest log line handed on whole (64 KiB); a longer one is cut and ends in the marker. */
export const LOG_LINE_LIMIT: LineLimit = { maxChars: 64 * 1024, marker: ' … [line cut at 64 KiB]' };

/**
 * At most this much of a previous container's log is read: it no longer grows, so the server
 * can stop sending (a followed current log cannot: limitBytes would end the follow).
 */
export const PREVIOUS_LOG_LIMIT_BYTES = 4 * 1024 * 1024;

/** Options of followPodLog. */
export interface PodLogOptions {
	/** The previous (terminated) container's log, as `kubectl logs --previous`. */
	previous?: boolean;
	/** Start with at most this many of the last lines (default 500). */
	tailLines?: number;
	/** Keep the stream open for new lines until the container ends (default true). */
	follow?: boolean;
	/** The container (default: the pod's only one). */
	container?: string;
	/** How long to wait for the server to answer (default 15 s). */
	openTimeoutMs?: number;
}

/**
 * Reads a pod's container log, handing each line to onLine as it arrives (raw: the caller
 * sanitises; a line over 64 KiB cut, see LOG_LINE_LIMIT). Resolves when the server ends the stream (the container ended, or a log that
 * is not followed was read); rejects with KubeHttpError on a refusal (400 names the reason,
 * such as a previous container that does not exist), or with the abort's reason.
 */
export function followPodLog(
	kc: KubeConfig,
	namespace: string,
	pod: string,
	signal: AbortSignal,
	onLine: (line: string) => void,
	opts: PodLogOptions = {},
	onOpen: () => void = () => {},
): Promise<void> {
	const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
	return streamLines(
		kc,
		path,
		{
			follow: opts.follow ?? true,
			tailLines: opts.tailLines ?? 500,
			previous: opts.previous ? true : undefined,
			limitBytes: opts.previous ? PREVIOUS_LOG_LIMIT_BYTES : undefined,
			container: opts.container,
		},
		signal,
		onOpen,
		onLine,
		opts.openTimeoutMs ?? 15_000,
		LOG_LINE_LIMIT,
	);
}
