/**
 * The TokenRequest subresource (`POST serviceaccounts/NAME/token`, authentication.k8s.io/v1):
 * `kubectl create token NAME [--duration D]` gets a token naming the ServiceAccount.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOKEN_ISSUER } from './authn.js';
import { badRequest, notFound, SimError } from './errors.js';
import { readJson, sendObj } from './http-io.js';
import { dryRunCauses, invalidOptions } from './query.js';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

/** A token's lifetime when the request names none (the v1 default). */
const DEFAULT_EXPIRATION_SECONDS = 3600;

/** Answers a TokenRequest with a new token for the ServiceAccount. */
export async function tokenRequest(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
): Promise<void> {
	const name = route.name!;
	const body = rec(await readJson(req));
	if (body.kind !== undefined && body.kind !== 'TokenRequest') {
		throw badRequest(
			`TokenRequest in version "v1" cannot be handled as a TokenRequest: kind "${String(body.kind)}" does not match "TokenRequest"`,
		);
	}
	// Tokens are not stored: the simulator issues one on a dry run too (the values are checked).
	const dry = dryRunCauses(q.getAll('dryRun'));
	if (dry.length > 0) throw invalidOptions('CreateOptions', dry);
	const sa = ctx.store.get('serviceaccounts', route.namespace, name);
	if (!sa) throw notFound('serviceaccounts', name);
	const spec = rec(body.spec);
	const exp =
		spec.expirationSeconds === undefined || spec.expirationSeconds === null
			? DEFAULT_EXPIRATION_SECONDS
			: Number(spec.expirationSeconds);
	const bad = (detail: string) => {
		const message = `Invalid value: ${exp}: ${detail}`;
		return new SimError(
			422,
			'Invalid',
			`TokenRequest.authentication.k8s.io ${JSON.stringify(name)} is invalid: spec.expirationSeconds: ${message}`,
			{
				name,
				group: 'authentication.k8s.io',
				kind: 'TokenRequest',
				causes: [{ reason: 'FieldValueInvalid', message, field: 'spec.expirationSeconds' }],
			},
		);
	};
	if (!Number.isInteger(exp) || exp < 600)
		throw bad('may not specify a duration less than 10 minutes');
	if (exp > 2 ** 32) throw bad('may not specify a duration larger than 2^32 seconds');
	const audiences =
		Array.isArray(spec.audiences) && spec.audiences.length > 0
			? spec.audiences.map(String)
			: [TOKEN_ISSUER];
	const issued = ctx.access.authenticator.issue(sa, exp, audiences);
	sendObj(res, 201, {
		kind: 'TokenRequest',
		apiVersion: 'authentication.k8s.io/v1',
		metadata: { name, namespace: route.namespace, creationTimestamp: null },
		spec: {
			audiences,
			expirationSeconds: exp,
			boundObjectRef: spec.boundObjectRef ?? null,
		},
		status: issued,
	});
}
