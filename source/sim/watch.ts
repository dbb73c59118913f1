/**
 * Watches of the simulated API server: initial events or a resume from a resourceVersion,
 * bookmarks, timeouts, ERROR events (410 Expired), and Table/PartialObjectMetadata framing.
 */

import type { ServerResponse } from 'node:http';
import { badRequest, expired, internalError, isSimApiError } from './errors.js';
import { queryBool, queryInt } from './query.js';
import { includeObject, listOptions, partialJson } from './reads.js';
import { apiVersionOf } from './resources.js';
import { contentTypeOf, type Format, type Route } from './routing.js';
import { parseFieldSelector } from './selectors.js';
import type { ServerContext, WatchStream } from './server-context.js';
import type { WatchDelivery } from './store.js';
import type { ListOptions, SimApiError, SimObject } from './store-api.js';
import { rowJson, tableJson } from './tables.js';

/** A watch whose client does not read is ended past this much buffered output. */
const MAX_WATCH_BUFFER = 32 * 1024 * 1024;

function nameField(route: Route, q: URLSearchParams): ListOptions['fields'] {
	const name = route.name!;
	const other = parseFieldSelector(route.info.name, q.get('fieldSelector'));
	return (obj) => obj.metadata.name === name && (!other || other(obj));
}

/** Serves a watch on a route until it times out, the client leaves or the server ends it. */
export function watch(
	ctx: ServerContext,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	fmt: Format,
	started: () => void,
): void {
	const info = route.info;
	const opts = route.name
		? { ...listOptions(route, q), fields: nameField(route, q) }
		: listOptions(route, q);
	const rvParam = q.get('resourceVersion') ?? '';
	if (rvParam !== '' && !/^\d+$/.test(rvParam))
		throw badRequest(`invalid resource version: ${rvParam}`);
	const bookmarks = queryBool(q, 'allowWatchBookmarks');
	const sendInitial = queryBool(q, 'sendInitialEvents');
	const timeoutRaw = queryInt(q, 'timeoutSeconds') ?? 0;
	const timeoutMs = timeoutRaw > 0 ? timeoutRaw * 1000 : (1800 + Math.random() * 1800) * 1000;

	res.writeHead(200, {
		'Content-Type': contentTypeOf(fmt),
		'Cache-Control': 'no-cache, private',
		'Transfer-Encoding': 'chunked',
	});
	res.flushHeaders();
	started();

	let columnsSent = false;
	let done = false;
	let unsubscribe: (() => void) | undefined;
	let bookmarkTimer: NodeJS.Timeout | undefined;
	let timeoutTimer: NodeJS.Timeout | undefined;
	const include = includeObject(q);

	const cleanup = () => {
		done = true;
		unsubscribe?.();
		unsubscribe = undefined;
		if (bookmarkTimer) clearInterval(bookmarkTimer);
		if (timeoutTimer) clearTimeout(timeoutTimer);
		ctx.watches.delete(stream);
	};
	const stream: WatchStream = {
		res,
		end: (abrupt) => {
			if (done) return;
			cleanup();
			if (abrupt) res.socket?.destroy();
			else res.end();
		},
	};
	ctx.watches.add(stream);
	res.once('close', cleanup);
	const writeLine = (line: string) => {
		if (done) return;
		res.write(`${line}\n`);
		if (res.writableLength > MAX_WATCH_BUFFER) stream.end(true);
	};
	const writeObject = (type: string, obj: SimObject, json: string) => {
		if (fmt.as === 'table') {
			const row = rowJson(info.name, obj, json, include, Date.now());
			const table = tableJson(
				info.name,
				`meta.k8s.io/${fmt.version}`,
				{ resourceVersion: obj.metadata.resourceVersion },
				[row],
				!columnsSent,
			);
			columnsSent = true;
			writeLine(`{"type":"${type}","object":${table}}`);
		} else if (fmt.as === 'partial') {
			writeLine(`{"type":"${type}","object":${partialJson(fmt.version, obj)}}`);
		} else {
			writeLine(`{"type":"${type}","object":${json}}`);
		}
	};
	const bookmark = (initialEnd = false) => {
		const ann = initialEnd ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : '';
		writeLine(
			`{"type":"BOOKMARK","object":{"kind":"${info.kind}","apiVersion":"${apiVersionOf(info)}","metadata":{"resourceVersion":"${ctx.store.revision()}"${ann}}}}`,
		);
	};
	const errorEvent = (err: SimApiError) => {
		writeLine(`{"type":"ERROR","object":${JSON.stringify(err.status)}}`);
		stream.end(false);
	};
	const deliver = (d: WatchDelivery) => writeObject(d.type, d.obj, d.json);

	const fromRv = rvParam === '' || rvParam === '0' || sendInitial ? undefined : Number(rvParam);
	if (fromRv !== undefined) {
		if (ctx.faults.take410()) {
			errorEvent(expired(fromRv, ctx.store.revision()));
			return;
		}
		try {
			unsubscribe = ctx.store.watchEntries(info.name, { ...opts, fromRevision: fromRv }, deliver);
		} catch (err) {
			if (isSimApiError(err)) errorEvent(err);
			else errorEvent(internalError(String(err)));
			return;
		}
	} else {
		for (const e of ctx.store.listEntries(info.name, opts)) writeObject('ADDED', e.obj, e.json);
		if (sendInitial && bookmarks) bookmark(true);
		unsubscribe = ctx.store.watchEntries(info.name, opts, deliver);
	}
	if (bookmarks && fmt.as === 'json') {
		bookmarkTimer = setInterval(() => bookmark(), ctx.bookmarkMs);
		bookmarkTimer.unref();
	}
	timeoutTimer = setTimeout(() => {
		if (bookmarks && fmt.as === 'json') bookmark();
		stream.end(false);
	}, timeoutMs);
	timeoutTimer.unref();
}
