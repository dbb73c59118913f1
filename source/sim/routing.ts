/**
 * From a request to what it asks for: the URL to an API route (resource, namespace, name,
 * subresource), the Accept header to a response format, the method to a Kubernetes verb, and
 * the discovery and OpenAPI documents served on their own paths.
 */

import {
	apiGroupDoc,
	apiGroupList,
	apiResourceList,
	apiVersions,
	openApiV3Doc,
	openApiV3Index,
	SIM_VERSION,
} from './discovery.js';
import { RESOURCES, type ResourceInfo } from './resources.js';

/** How a response body is shaped, from the Accept header. */
export type Format =
	| { as: 'json' }
	| { as: 'table'; version: string }
	| { as: 'partial'; version: string };

/** A request routed to a resource. */
export interface Route {
	/** The resource the URL names. */
	info: ResourceInfo;
	/** The namespace of a namespaced URL. */
	namespace?: string;
	/** The object name (absent on a collection). */
	name?: string;
	/** The subresource (status, log, exec, ...). */
	sub?: string;
}

/** A group/version of the API. */
export interface GroupVersion {
	group: string;
	version: string;
}

/** The response format an Accept header asks for (JSON, a Table, or PartialObjectMetadata). */
export function parseAccept(accept: string | undefined): Format {
	if (!accept) return { as: 'json' };
	for (const part of accept.split(',')) {
		const [type = '', ...params] = part.split(';').map((s) => s.trim());
		const p = new Map(
			params.map((kv) => {
				const i = kv.indexOf('=');
				return [kv.slice(0, i).trim(), kv.slice(i + 1).trim()] as [string, string];
			}),
		);
		if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
		const as = p.get('as');
		if (!as) return { as: 'json' };
		const g = p.get('g');
		if (g !== undefined && g !== 'meta.k8s.io') continue;
		const v = p.get('v') ?? 'v1';
		if (v !== 'v1' && v !== 'v1beta1') continue;
		if (as === 'Table') return { as: 'table', version: v };
		if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
			return { as: 'partial', version: v };
		}
	}
	return { as: 'json' };
}

/** The Content-Type of a response in a format. */
export function contentTypeOf(f: Format): string {
	if (f.as === 'table') return `application/json;as=Table;v=${f.version};g=meta.k8s.io`;
	if (f.as === 'partial')
		return `application/json;as=PartialObjectMetadataList;v=${f.version};g=meta.k8s.io`;
	return 'application/json';
}

/** Splits a path (as its parts) into an API group/version and the rest, if it is an API path. */
export function apiRoute(parts: string[]): { gv: GroupVersion; rest: string[] } | undefined {
	if (parts[0] === 'api' && parts[1] === 'v1')
		return { gv: { group: '', version: 'v1' }, rest: parts.slice(2) };
	if (parts[0] === 'apis' && parts.length >= 3) {
		return { gv: { group: parts[1]!, version: parts[2]! }, rest: parts.slice(3) };
	}
	return undefined;
}

/** The resource route of the path parts after a group/version, if they name a served resource. */
export function resourceRoute(gv: GroupVersion, rest: string[]): Route | undefined {
	const find = (name: string) => {
		const info = RESOURCES.get(name);
		return info && info.group === gv.group && info.version === gv.version ? info : undefined;
	};
	if (rest[0] === 'namespaces' && gv.group === '' && rest.length >= 3 && rest.length <= 5) {
		if (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize')) {
			return { info: find('namespaces')!, name: rest[1], sub: rest[2] };
		}
	}
	if (rest[0] === 'namespaces' && rest.length >= 3) {
		const info = find(rest[2]!);
		if (!info?.namespaced || rest.length > 5) return undefined;
		return { info, namespace: rest[1], name: rest[3], sub: rest[4] };
	}
	if (rest.length >= 1 && rest.length <= 3) {
		const info = find(rest[0]!);
		if (!info) return undefined;
		if (info.namespaced && rest.length > 1) return undefined;
		return { info, name: rest[1], sub: rest[2] };
	}
	return undefined;
}

/**
 * Subresources a real server serves that the simulated cluster does not: a request for one
 * answers 404 NotFound, as a server without them does, never a silent success.
 */
export const NOT_SERVED = new Set(['attach', 'portforward', 'proxy']);

/** The Kubernetes verb of a request on a route (undefined when the method is not allowed there). */
export function verbOf(method: string, route: Route, isWatch: boolean): string | undefined {
	const item = route.name !== undefined;
	if (route.sub === 'exec') return 'create';
	switch (method) {
		case 'GET':
			if (isWatch) return 'watch';
			return item ? 'get' : 'list';
		case 'POST':
			return item && !route.sub ? undefined : 'create';
		case 'PUT':
			return item ? 'update' : undefined;
		case 'PATCH':
			return item ? 'patch' : undefined;
		case 'DELETE':
			return item ? 'delete' : 'deletecollection';
		default:
			return undefined;
	}
}

/** The discovery, version or OpenAPI document a GET of a non-resource path answers, if any. */
export function discoveryDocument(
	path: string,
	parts: string[],
	port: number,
): unknown | undefined {
	if (path === '/version') return SIM_VERSION;
	if (path === '/api') return apiVersions(`127.0.0.1:${port}`);
	if (path === '/apis') return apiGroupList();
	if (path === '/api/v1') return apiResourceList('', 'v1');
	if (parts[0] === 'apis' && parts.length === 2) return apiGroupDoc(parts[1]!);
	if (parts[0] === 'apis' && parts.length === 3) return apiResourceList(parts[1]!, parts[2]!);
	if (path === '/openapi/v3') return openApiV3Index();
	if (parts[0] === 'openapi' && parts[1] === 'v3') {
		const rest = parts.slice(2);
		if (rest[0] === 'api' && rest.length === 2) return openApiV3Doc('', rest[1]!);
		if (rest[0] === 'apis' && rest.length === 3) return openApiV3Doc(rest[1]!, rest[2]!);
	}
	return undefined;
}
