/** Kubernetes Status errors with the real reasons, codes and messages. */

import { qualifiedResource, resourceInfo } from './resources.js';
import type { SimApiError } from './store-api.js';

/** The Status body of a failure. */
export type FailureStatus = SimApiError['status'];

/** One cause of a 422 Invalid. */
export interface StatusCause {
	reason: string;
	message: string;
	field?: string;
}

/** An error carrying the HTTP code and the Status body the server returns as is. */
export class SimError extends Error implements SimApiError {
	/** The HTTP status code. */
	readonly code: number;
	/** The Status body. */
	readonly status: FailureStatus;

	constructor(code: number, reason: string, message: string, details?: Record<string, unknown>) {
		super(message);
		this.name = 'SimError';
		this.code = code;
		this.status = {
			kind: 'Status',
			apiVersion: 'v1',
			metadata: {},
			status: 'Failure',
			message,
			reason,
			...(details ? { details } : {}),
			code,
		};
	}
}

/** Whether a value is a SimApiError (thrown by the store or the server). */
export function isSimApiError(e: unknown): e is SimApiError {
	return (
		e instanceof Error &&
		typeof (e as Partial<SimApiError>).code === 'number' &&
		typeof (e as Partial<SimApiError>).status === 'object'
	);
}

function nameDetails(resource: string, name: string): Record<string, unknown> {
	const info = resourceInfo(resource);
	return info.group ? { name, group: info.group, kind: resource } : { name, kind: resource };
}

/** 404 `pods "foo" not found`. */
export function notFound(resource: string, name: string): SimError {
	return new SimError(
		404,
		'NotFound',
		`${qualifiedResource(resource)} "${name}" not found`,
		nameDetails(resource, name),
	);
}

/** 404 for a path the server does not serve. */
export function pathNotFound(): SimError {
	return new SimError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 409 `configmaps "foo" already exists`. */
export function alreadyExists(resource: string, name: string): SimError {
	return new SimError(
		409,
		'AlreadyExists',
		`${qualifiedResource(resource)} "${name}" already exists`,
		nameDetails(resource, name),
	);
}

/** 409 Conflict; `detail` defaults to the stale-resourceVersion message. */
export function conflict(resource: string, name: string, detail?: string): SimError {
	const why =
		detail ??
		'the object has been modified; please apply your changes to the latest version and try again';
	return new SimError(
		409,
		'Conflict',
		`Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${why}`,
		nameDetails(resource, name),
	);
}

/**
 * 409 Conflict of a delete precondition, as the storage layer words it: by kind, not by
 * resource (`Operation cannot be fulfilled on Pod "x": the UID in the precondition ...`).
 */
export function preconditionFailed(resource: string, name: string, why: string): SimError {
	const info = resourceInfo(resource);
	const kindName = info.group ? `${info.kind}.${info.group}` : info.kind;
	return new SimError(
		409,
		'Conflict',
		`Operation cannot be fulfilled on ${kindName} "${name}": ${why}`,
		{
			name,
			...(info.group ? { group: info.group } : {}),
			kind: info.kind,
		},
	);
}

/**
 * 422 for a PUT without metadata.resourceVersion of a kind that requires one: worded by
 * resource, as the registry words it (`leases.coordination.k8s.io "x" is invalid: ...`).
 */
export function unconditionalUpdateRefused(resource: string, name: string): SimError {
	const info = resourceInfo(resource);
	const cause = {
		reason: 'FieldValueInvalid',
		message: 'Invalid value: 0: must be specified for an update',
		field: 'metadata.resourceVersion',
	};
	return new SimError(
		422,
		'Invalid',
		`${qualifiedResource(resource)} "${name}" is invalid: ${cause.field}: ${cause.message}`,
		{ name, ...(info.group ? { group: info.group } : {}), kind: resource, causes: [cause] },
	);
}

/** 422 Invalid: `Pod "x" is invalid: spec.containers: Required value`. */
export function invalid(resource: string, name: string, causes: StatusCause[]): SimError {
	const info = resourceInfo(resource);
	const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
	const list = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
	const kindName = info.group ? `${info.kind}.${info.group}` : info.kind;
	return new SimError(422, 'Invalid', `${kindName} "${name}" is invalid: ${list}`, {
		name,
		...(info.group ? { group: info.group } : {}),
		kind: info.kind,
		causes,
	});
}

/** A 422 cause for a missing field. */
export function required(field: string): StatusCause {
	return { reason: 'FieldValueRequired', message: 'Required value', field };
}

/** A 422 cause for a bad value. */
export function invalidValue(field: string, value: unknown, detail: string): StatusCause {
	return {
		reason: 'FieldValueInvalid',
		message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
		field,
	};
}

/** A 422 cause for a forbidden change. */
export function forbiddenField(field: string, detail: string): StatusCause {
	return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** 410 Expired `too old resource version: X (Y)`. */
export function expired(requested: number, oldest: number): SimError {
	return new SimError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}

/** 410 Expired for a continue token older than the history. */
export function continueExpired(): SimError {
	return new SimError(
		410,
		'Expired',
		'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
	);
}

/** 400 BadRequest. */
export function badRequest(message: string): SimError {
	return new SimError(400, 'BadRequest', message);
}

/** 401 Unauthorized. */
export function unauthorized(): SimError {
	return new SimError(401, 'Unauthorized', 'Unauthorized');
}

/**
 * 403 Forbidden, as RBAC words it: `pods "desk-1" is forbidden: User "u" cannot delete
 * resource "pods" in API group "" in the namespace "corral"`.
 */
export function forbidden(
	user: string,
	verb: string,
	resource: string,
	namespace: string | undefined,
	name?: string,
	subresource?: string,
): SimError {
	const info = resourceInfo(resource);
	const full = subresource ? `${resource}/${subresource}` : resource;
	const what = name
		? `${qualifiedResource(resource)} "${name}" is forbidden`
		: `${qualifiedResource(resource)} is forbidden`;
	const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
	const details: Record<string, unknown> = { ...(name ? { name } : {}) };
	if (info.group) details.group = info.group;
	details.kind = resource;
	return new SimError(
		403,
		'Forbidden',
		`${what}: User "${user}" cannot ${verb} resource "${full}" in API group "${info.group}" ${scope}`,
		details,
	);
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): SimError {
	return new SimError(
		405,
		'MethodNotAllowed',
		'the server does not allow this method on the requested resource',
		{},
	);
}

/** 415 UnsupportedMediaType: the body's content type is not one the server reads. */
export function unsupportedMediaType(
	contentType: string,
	accepted = 'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
): SimError {
	return new SimError(
		415,
		'UnsupportedMediaType',
		`the body of the request was in an unknown format - accepted media types include: ${accepted}`,
		{
			causes: [
				{
					reason: 'UnexpectedHeader',
					message: `unsupported content type ${JSON.stringify(contentType)}`,
					field: 'Content-Type',
				},
			],
		},
	);
}

/** 415 for a PATCH of a type the server does not apply, as kube-apiserver words it. */
export function unsupportedPatchType(): SimError {
	return new SimError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
}

/** 500 InternalError `Internal error occurred: X`. */
export function internalError(detail: string): SimError {
	return new SimError(500, 'InternalError', `Internal error occurred: ${detail}`, {
		causes: [{ message: detail }],
	});
}

/** 503 ServiceUnavailable. */
export function serviceUnavailable(
	detail = 'the server is currently unable to handle the request',
): SimError {
	return new SimError(503, 'ServiceUnavailable', detail, {});
}

/** 504 Timeout. */
export function timeoutError(detail: string): SimError {
	return new SimError(504, 'Timeout', detail, {});
}
