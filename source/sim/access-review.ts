/**
 * Authorisation of requests and the reviews that ask about it: every request is decided by
 * RBAC for its identity (access-control.ts), and SelfSubjectAccessReview,
 * SelfSubjectRulesReview (`kubectl auth can-i --list`) and SelfSubjectReview (`kubectl auth
 * whoami`) answer from the same rules.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, invalid } from './errors.js';
import { readJson, sendObj } from './http-io.js';
import { type Attributes, rulesFor, type UserInfo } from './rbac.js';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';
import { isoSeconds } from './store.js';

export { deniedBy } from './access-control.js';

/** The name a field selector pins exactly (`metadata.name=x`), as kube's request-info resolver reads it. */
function selectedName(fieldSelector: string | null | undefined): string | undefined {
	for (const term of (fieldSelector ?? '').split(',')) {
		const m = /^\s*metadata\.name\s*==?\s*([^\s,]+)\s*$/.exec(term);
		if (m && !/[/%]/.test(m[1]!) && m[1] !== '.' && m[1] !== '..') return m[1];
	}
	return undefined;
}

/**
 * The authorisation attributes of a request on a resource route; a list or watch whose field
 * selector pins `metadata.name` is authorised for that name (so resourceNames rules apply).
 */
export function routeAttributes(
	verb: string,
	route: Route,
	fieldSelector?: string | null,
): Attributes {
	const resource = route.info.name;
	// As kube's request-info resolver does, a namespace's own URL is in that namespace.
	const namespace = resource === 'namespaces' ? route.name : route.namespace;
	const attrs: Attributes = {
		verb,
		resourceRequest: true,
		apiGroup: route.info.group,
		resource,
		...(route.sub ? { subresource: route.sub } : {}),
		...(namespace ? { namespace } : {}),
		...(route.name ? { name: route.name } : {}),
	};
	if (!route.name && (verb === 'list' || verb === 'watch')) {
		const name = selectedName(fieldSelector);
		if (name) attrs.name = name;
	}
	return attrs;
}

/** Throws the real 403 Forbidden unless the user may do `verb` on the route. */
export function authorise(
	ctx: ServerContext,
	user: UserInfo,
	verb: string,
	route: Route,
	fieldSelector?: string | null,
): void {
	ctx.access.check(user, routeAttributes(verb, route, fieldSelector));
}

/**
 * Throws unless the user may exec (or attach) on the route. A 1.32 server authorises the
 * WebSocket GET as `get` on pods/exec, and kubectl falls back to SPDY (a POST: `create`) when
 * that is refused; the simulator serves WebSocket only, so either verb lets it in, and a
 * refusal names `create`, as the SPDY retry's 403 does.
 */
export function authoriseExec(ctx: ServerContext, user: UserInfo, route: Route): void {
	const create = routeAttributes('create', route);
	const byCreate = ctx.access.decide(user, create);
	if (byCreate.allowed) return;
	const overlay = byCreate.reason !== '';
	if (!overlay && ctx.access.decide(user, routeAttributes('get', route)).allowed) return;
	ctx.access.check(user, create);
}

function reviewBody(v: unknown): Record<string, unknown> {
	return v !== null && typeof v === 'object' && !Array.isArray(v)
		? (v as Record<string, unknown>)
		: {};
}

/** Answers a SelfSubjectAccessReview (JSON or protobuf body) with what a request would get. */
export async function accessReview(
	ctx: ServerContext,
	user: UserInfo,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const body = reviewBody(await readJson(req));
	const spec = reviewBody(body.spec) as {
		resourceAttributes?: Record<string, string>;
		nonResourceAttributes?: Record<string, string>;
	};
	const ra = spec.resourceAttributes;
	const nra = spec.nonResourceAttributes;
	if ((ra && nra) || (!ra && !nra)) {
		throw invalid('selfsubjectaccessreviews', '', [
			{
				reason: 'FieldValueRequired',
				message:
					'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
				field: 'spec.resourceAttributes',
			},
		]);
	}
	const attrs: Attributes = ra
		? {
				verb: ra.verb ?? '',
				resourceRequest: true,
				apiGroup: ra.group ?? '',
				resource: ra.resource ?? '',
				...(ra.subresource ? { subresource: ra.subresource } : {}),
				...(ra.namespace ? { namespace: ra.namespace } : {}),
				...(ra.name ? { name: ra.name } : {}),
			}
		: { verb: nra?.verb ?? '', resourceRequest: false, path: nra?.path ?? '' };
	const decision = ctx.access.decide(user, attrs);
	sendObj(res, 201, {
		kind: 'SelfSubjectAccessReview',
		apiVersion: 'authorization.k8s.io/v1',
		metadata: { creationTimestamp: null },
		spec,
		status: {
			allowed: decision.allowed,
			...(decision.reason ? { reason: decision.reason } : {}),
		},
	});
}

/** Answers a SelfSubjectRulesReview: the rules the user holds in the namespace. */
export async function rulesReview(
	ctx: ServerContext,
	user: UserInfo,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const body = reviewBody(await readJson(req));
	const spec = reviewBody(body.spec);
	const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
	if (!namespace) throw badRequest('no namespace on request');
	const rules = rulesFor(ctx.access.source(), user, namespace);
	sendObj(res, 201, {
		kind: 'SelfSubjectRulesReview',
		apiVersion: 'authorization.k8s.io/v1',
		metadata: { creationTimestamp: null },
		spec: { namespace },
		status: { ...rules, incomplete: false },
	});
}

/** Answers a SelfSubjectReview: who the request's credentials (or impersonation) say the user is. */
export async function selfReview(
	_ctx: ServerContext,
	user: UserInfo,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	await readJson(req);
	// kube-apiserver stamps the review it answers (kubectl auth whoami -o json shows it)
	sendObj(res, 201, {
		kind: 'SelfSubjectReview',
		apiVersion: 'authentication.k8s.io/v1',
		metadata: { creationTimestamp: isoSeconds(Date.now()) },
		status: {
			userInfo: {
				username: user.username,
				...(user.uid ? { uid: user.uid } : {}),
				groups: user.groups,
				...(user.extra ? { extra: user.extra } : {}),
			},
		},
	});
}

/** The review endpoints: path -> resource, group and handler. */
export const REVIEWS: Record<
	string,
	{
		resource: string;
		group: string;
		handle: typeof accessReview;
	}
> = {
	'/apis/authorization.k8s.io/v1/selfsubjectaccessreviews': {
		resource: 'selfsubjectaccessreviews',
		group: 'authorization.k8s.io',
		handle: accessReview,
	},
	'/apis/authorization.k8s.io/v1/selfsubjectrulesreviews': {
		resource: 'selfsubjectrulesreviews',
		group: 'authorization.k8s.io',
		handle: rulesReview,
	},
	'/apis/authentication.k8s.io/v1/selfsubjectreviews': {
		resource: 'selfsubjectreviews',
		group: 'authentication.k8s.io',
		handle: selfReview,
	},
};
