/**
 * Reads of the simulated API server: get and list, as JSON, Table or PartialObjectMetadata,
 * with label/field selectors, resourceVersion semantics and limit/continue paging.
 */

import type { ServerResponse } from 'node:http';
import { badRequest, expired, invalid, notFound } from './errors.js';
import { send } from './http-io.js';
import { invalidOptions, queryInt } from './query.js';
import { apiVersionOf } from './resources.js';
import { contentTypeOf, type Format, type Route } from './routing.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ServerContext } from './server-context.js';
import type { StoredEntry } from './store.js';
import type { ListOptions, SimObject } from './store-api.js';
import { type IncludeObject, rowJson, tableJson } from './tables.js';

function encodeContinue(rv: number, start: string): string {
	return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
	try {
		const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
			v?: string;
			rv?: number;
			start?: string;
		};
		if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') {
			throw new Error('bad token');
		}
		return { rv: t.rv, start: t.start };
	} catch {
		throw badRequest(
			'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
		);
	}
}

function keyOf(obj: SimObject): string {
	return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/** The store list options (namespace, label and field selectors) of a request. */
export function listOptions(route: Route, q: URLSearchParams): ListOptions {
	return {
		namespace: route.info.namespaced ? route.namespace : undefined,
		labels: parseLabelSelector(q.get('labelSelector')),
		fields: parseFieldSelector(route.info.name, q.get('fieldSelector')),
	};
}

/** What a Table row carries of its object (`includeObject`, default Metadata). */
export function includeObject(q: URLSearchParams): IncludeObject {
	const v = q.get('includeObject');
	return v === 'None' || v === 'Object' ? v : 'Metadata';
}

/** An object as PartialObjectMetadata JSON. */
export function partialJson(version: string, obj: SimObject): string {
	return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(obj.metadata)}}`;
}

function listBody(
	route: Route,
	fmt: Format,
	q: URLSearchParams,
	entries: StoredEntry[],
	meta: Record<string, unknown>,
): string {
	const info = route.info;
	if (fmt.as === 'table') {
		const now = Date.now();
		const include = includeObject(q);
		const rows = entries.map((e) => rowJson(info.name, e.obj, e.json, include, now));
		return tableJson(
			info.name,
			`meta.k8s.io/${fmt.version}`,
			meta,
			rows,
			q.get('includeObject') !== 'NoHeaders',
		);
	}
	if (fmt.as === 'partial') {
		const items = entries.map((e) => partialJson(fmt.version, e.obj));
		return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${fmt.version}","metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`;
	}
	return `{"kind":"${info.kind}List","apiVersion":"${apiVersionOf(info)}","metadata":${JSON.stringify(meta)},"items":[${entries.map((e) => e.json).join(',')}]}`;
}

/** Answers a list: resourceVersion/resourceVersionMatch semantics, paging, the format asked for. */
export function list(
	ctx: ServerContext,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	fmt: Format,
): void {
	const opts = listOptions(route, q);
	const rv = q.get('resourceVersion') ?? '';
	const rvm = q.get('resourceVersionMatch') ?? '';
	if (rvm && !rv) {
		throw invalidOptions('ListOptions', [
			{
				reason: 'FieldValueForbidden',
				message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
				field: 'resourceVersionMatch',
			},
		]);
	}
	if (rvm && rvm !== 'Exact' && rvm !== 'NotOlderThan') {
		throw invalid('', '', [
			{
				reason: 'FieldValueNotSupported',
				message: `Unsupported value: "${rvm}": supported values: "Exact", "NotOlderThan"`,
				field: 'resourceVersionMatch',
			},
		]);
	}
	if (rv !== '' && !/^\d+$/.test(rv)) {
		throw badRequest(`invalid resource version: ${rv}`);
	}
	const limit = Math.max(0, queryInt(q, 'limit') ?? 0);
	const cont = q.get('continue');
	let entries: StoredEntry[];
	let listRv: number;
	if (cont) {
		const t = decodeContinue(cont);
		entries = ctx.store.snapshotEntries(route.info.name, t.rv, opts, t.start);
		listRv = t.rv;
	} else if (rv !== '' && rvm === 'Exact') {
		const at = Number(rv);
		if (at < ctx.store.compactedRevision()) throw expired(at, ctx.store.compactedRevision() + 1);
		entries = ctx.store.snapshotEntries(route.info.name, at, opts);
		listRv = at;
	} else {
		entries = ctx.store.listEntries(route.info.name, opts);
		listRv = ctx.store.revision();
	}
	const meta: Record<string, unknown> = { resourceVersion: String(listRv) };
	if (limit > 0 && entries.length > limit) {
		const page = entries.slice(0, limit);
		meta.continue = encodeContinue(listRv, keyOf(page[page.length - 1]!.obj));
		meta.remainingItemCount = entries.length - limit;
		entries = page;
	}
	send(res, 200, listBody(route, fmt, q, entries, meta), contentTypeOf(fmt));
}

/** Answers a get of one object (or its status subresource) in the format asked for. */
export function get(
	ctx: ServerContext,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	fmt: Format,
): void {
	const e = ctx.store.getEntry(route.info.name, route.namespace, route.name!);
	if (!e) throw notFound(route.info.name, route.name!);
	if (fmt.as === 'table' && route.sub === undefined) {
		const body = listBody(route, fmt, q, [e], {
			resourceVersion: e.obj.metadata.resourceVersion,
		});
		send(res, 200, body, contentTypeOf(fmt));
		return;
	}
	if (fmt.as === 'partial') {
		send(res, 200, partialJson(fmt.version, e.obj), contentTypeOf(fmt));
		return;
	}
	send(res, 200, e.json);
}
