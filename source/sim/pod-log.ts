/**
 * The `pods/log` subresource: which container's log a request reads (the API server's and
 * the kubelet's checks, with their error texts), and how it is served: `tailLines`,
 * `sinceSeconds`/`sinceTime`, `timestamps`, `limitBytes`, `previous`, and `follow` (streams
 * until the container ends or the client goes).
 */

import type { ServerResponse } from 'node:http';
import type { ContainerLogs, LogLine } from './container-logs.js';
import { badRequest, notFound, pathNotFound, SimError } from './errors.js';
import { queryBool, queryInt } from './query.js';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';
import type { SimObject } from './store-api.js';

interface StatusView {
	name: string;
	containerID?: string;
	state?: {
		waiting?: { reason?: string };
		running?: unknown;
		terminated?: { containerID?: string };
	};
	lastState?: { terminated?: { containerID?: string } };
}

/** What a log request asks for, read from its query. */
export interface PodLogQuery {
	container: string;
	follow: boolean;
	previous: boolean;
	timestamps: boolean;
	tailLines?: number;
	limitBytes?: number;
	/** Only lines written at or after this time (ms since the epoch). */
	since?: number;
}

function invalidOptions(pod: string, field: string, value: unknown, detail: string): SimError {
	const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
	return new SimError(422, 'Invalid', `PodLogOptions "${pod}" is invalid: ${field}: ${message}`, {
		name: pod,
		kind: 'PodLogOptions',
		causes: [{ reason: 'FieldValueInvalid', message, field }],
	});
}

/**
 * Reads and validates the options of a log request for a pod, as ValidatePodLogOptions and
 * LogLocation do: a known container (the only one when none is named), tailLines >= 0,
 * limitBytes and sinceSeconds > 0, not both sinceSeconds and sinceTime.
 */
export function podLogQuery(pod: SimObject, q: URLSearchParams, now = Date.now()): PodLogQuery {
	const name = pod.metadata.name;
	const spec = (pod.spec ?? {}) as { containers?: { name: string }[] };
	const names = (spec.containers ?? []).map((c) => c.name);
	let container = q.get('container') ?? '';
	if (!container) {
		if (names.length !== 1) {
			throw badRequest(
				`a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`,
			);
		}
		container = names[0]!;
	}
	if (!names.includes(container)) {
		throw badRequest(`container ${container} is not valid for pod ${name}`);
	}
	const out: PodLogQuery = {
		container,
		follow: queryBool(q, 'follow'),
		previous: queryBool(q, 'previous'),
		timestamps: queryBool(q, 'timestamps'),
	};
	const tail = queryInt(q, 'tailLines');
	if (tail !== undefined) {
		if (tail < 0)
			throw invalidOptions(name, 'tailLines', tail, 'must be greater than or equal to 0');
		out.tailLines = tail;
	}
	const limit = queryInt(q, 'limitBytes');
	if (limit !== undefined) {
		if (limit < 1) throw invalidOptions(name, 'limitBytes', limit, 'must be greater than 0');
		out.limitBytes = limit;
	}
	const sinceSeconds = queryInt(q, 'sinceSeconds');
	const sinceTime = q.get('sinceTime');
	if (sinceSeconds !== undefined && sinceTime) {
		const message = 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified';
		throw new SimError(422, 'Invalid', `PodLogOptions "${name}" is invalid: ${message}`, {
			name,
			kind: 'PodLogOptions',
			causes: [{ reason: 'FieldValueForbidden', message, field: '' }],
		});
	}
	if (sinceSeconds !== undefined) {
		if (sinceSeconds < 1) {
			throw invalidOptions(name, 'sinceSeconds', sinceSeconds, 'must be greater than 0');
		}
		out.since = now - sinceSeconds * 1000;
	} else if (sinceTime) {
		const t = Date.parse(sinceTime);
		if (!/^\d{4}-\d{2}-\d{2}T/.test(sinceTime) || Number.isNaN(t)) {
			throw badRequest(
				`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as "2006"`,
			);
		}
		out.since = t;
	}
	return out;
}

/**
 * The container ID whose log a request reads, as the kubelet picks it from the pod's status;
 * throws its 400 errors (no previous container, waiting to start, image pull failing).
 * Undefined when the pod is not on a node yet (the API server then answers with no lines).
 */
export function logContainerId(pod: SimObject, opts: PodLogQuery): string | undefined {
	const name = pod.metadata.name;
	const c = JSON.stringify(opts.container);
	const p = JSON.stringify(name);
	if (!(pod.spec as { nodeName?: string } | undefined)?.nodeName) return undefined;
	const statuses =
		(pod.status as { containerStatuses?: StatusView[] } | undefined)?.containerStatuses ?? [];
	const s = statuses.find((x) => x.name === opts.container);
	if (!s) throw badRequest(`container ${c} in pod ${p} is not available`);
	const last = s.lastState?.terminated;
	if (opts.previous) {
		if (!last?.containerID) {
			throw badRequest(`previous terminated container ${c} in pod ${p} not found`);
		}
		return last.containerID;
	}
	if (s.state?.running) return s.containerID;
	const terminated = s.state?.terminated;
	if (terminated) {
		if (terminated.containerID) return terminated.containerID;
		if (last?.containerID) return last.containerID;
		throw badRequest(`container ${c} in pod ${p} is terminated`);
	}
	if (last) {
		if (!last.containerID) throw badRequest(`container ${c} in pod ${p} is terminated`);
		return last.containerID;
	}
	const waiting = s.state?.waiting?.reason;
	if (waiting === 'ErrImagePull') {
		throw badRequest(`container ${c} in pod ${p} is waiting to start: image can't be pulled`);
	}
	if (waiting === 'ImagePullBackOff') {
		throw badRequest(
			`container ${c} in pod ${p} is waiting to start: trying and failing to pull image`,
		);
	}
	if (waiting) throw badRequest(`container ${c} in pod ${p} is waiting to start: ${waiting}`);
	throw badRequest(`container ${c} in pod ${p} is waiting to start - no logs yet`);
}

/** A time as the container runtime writes it in logs: nanoseconds, always nine digits. */
export function logTimestamp(ms: number): string {
	const iso = new Date(ms).toISOString();
	return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000000Z`;
}

/**
 * Serves a log request after the checks: the chosen lines at once, then, with follow, each
 * new line until the container ends (or limitBytes is reached, or the client goes).
 */
export function servePodLog(
	res: ServerResponse,
	logs: ContainerLogs,
	id: string | undefined,
	opts: PodLogQuery,
): void {
	let lines = id ? (logs.lines(id) ?? []) : [];
	if (opts.since !== undefined) lines = lines.filter((l) => l.at >= opts.since!);
	if (opts.tailLines !== undefined)
		lines = opts.tailLines === 0 ? [] : lines.slice(-opts.tailLines);
	res.writeHead(200, {
		'Content-Type': 'text/plain',
		'Cache-Control': 'no-cache, private',
		'Transfer-Encoding': 'chunked',
	});
	let left = opts.limitBytes ?? Number.POSITIVE_INFINITY;
	let unfollow: (() => void) | undefined;
	let done = false;
	const finish = () => {
		if (done) return;
		done = true;
		unfollow?.();
		res.end();
	};
	const write = (l: LogLine): void => {
		if (done) return;
		let text = `${opts.timestamps ? `${logTimestamp(l.at)} ` : ''}${l.text}\n`;
		const size = Buffer.byteLength(text);
		if (size >= left) {
			text = Buffer.from(text).subarray(0, left).toString();
			left = 0;
		} else left -= size;
		res.write(text);
		if (left <= 0) finish();
	};
	for (const l of lines) write(l);
	if (done) return;
	if (!opts.follow || opts.previous || !id) {
		finish();
		return;
	}
	res.flushHeaders();
	unfollow = logs.follow(id, { line: write, end: finish });
	res.once('close', () => {
		done = true;
		unfollow?.();
	});
}

/**
 * Answers GET pods/NAME/log: the API server's checks (pod, container, options), the
 * kubelet's (which container ID; waiting, no previous), then the lines, following with
 * `follow=true` until the container ends.
 */
export function podLog(
	ctx: ServerContext,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
): void {
	if (route.info.name !== 'pods' || !route.name) throw pathNotFound();
	const pod = ctx.store.getEntry('pods', route.namespace, route.name)?.obj;
	if (!pod) throw notFound('pods', route.name);
	const opts = podLogQuery(pod, q);
	const id = logContainerId(pod, opts);
	servePodLog(res, ctx.logs, id, opts);
}
