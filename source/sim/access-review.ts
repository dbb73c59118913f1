/**
 * Authorisation in the simulated cluster: the configured deny list decides every request
 * (`authorise`), and SelfSubjectAccessReview answers what it would decide (`accessReview`).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, forbidden, invalid } from './errors.js';
import { contentTypeOfRequest, readJson, readRaw, sendObj } from './http-io.js';
import { decodeSelfSubjectAccessReview, PROTOBUF } from './protobuf.js';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';

/** The first `verb resource` entry of the deny list that matches, if any. */
export function deniedBy(
	deny: readonly string[],
	verb: string,
	resource: string,
	subresource?: string,
): string | undefined {
	const full = subresource ? `${resource}/${subresource}` : resource;
	for (const entry of deny) {
		const [v = '', r = ''] = entry.trim().split(/\s+/);
		const [rName = '', rSub] = r.split('/');
		const rFull = rSub ? `${rName.split('.')[0]}/${rSub}` : (rName.split('.')[0] ?? '');
		if ((v === '*' || v === verb) && (r === '*' || rFull === full)) return entry;
	}
	return undefined;
}

/** Throws the real 403 Forbidden when the request's verb on its route is not allowed. */
export function authorise(ctx: ServerContext, verb: string, route: Route): void {
	if (deniedBy(ctx.config.deny, verb, route.info.name, route.sub)) {
		throw forbidden(ctx.user, verb, route.info.name, route.namespace, route.name, route.sub);
	}
}

/** Answers a SelfSubjectAccessReview (JSON or protobuf body) with what `authorise` would decide. */
export async function accessReview(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const type = contentTypeOfRequest(req);
	let body:
		| {
				spec?: {
					resourceAttributes?: Record<string, string>;
					nonResourceAttributes?: Record<string, string>;
				};
		  }
		| undefined;
	if (type === PROTOBUF) {
		try {
			body = decodeSelfSubjectAccessReview(await readRaw(req));
		} catch (e) {
			throw badRequest(`protobuf: ${(e as Error).message}`);
		}
	} else body = (await readJson(req)) as typeof body;
	const spec = body?.spec ?? {};
	const attrs = spec.resourceAttributes;
	let status: Record<string, unknown> = {
		allowed: true,
		reason: 'allowed by the simulated cluster',
	};
	if (attrs) {
		const resource = (attrs.resource ?? '').split('.')[0] ?? '';
		const denial = deniedBy(
			ctx.config.deny,
			attrs.verb ?? '',
			resource,
			attrs.subresource || undefined,
		);
		if (denial) {
			status = {
				allowed: false,
				reason: `denied by the simulated cluster's configuration: ${denial}`,
			};
		}
	} else if (!spec.nonResourceAttributes) {
		throw invalid('selfsubjectaccessreviews', '', [
			{
				reason: 'FieldValueRequired',
				message:
					'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
				field: 'spec.resourceAttributes',
			},
		]);
	}
	sendObj(res, 201, {
		kind: 'SelfSubjectAccessReview',
		apiVersion: 'authorization.k8s.io/v1',
		metadata: { creationTimestamp: null },
		spec,
		status,
	});
}
