/**
 * Writes of the simulated API server: create, update, patch, delete and deletecollection,
 * with the decoding checks, defaulting and admission a real server applies before the store.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { initialStatus } from './defaults.js';
import { defaultDeployment } from './deployments.js';
import {
	badRequest,
	isSimApiError,
	methodNotAllowed,
	notFound,
	type StatusCause,
	unconditionalUpdateRefused,
	unsupportedPatchType,
} from './errors.js';
import {
	addWarnings,
	contentTypeOfRequest,
	readBody,
	readJson,
	readJsonText,
	send,
	sendObj,
} from './http-io.js';
import { checkImmutable } from './immutable.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from './patch.js';
import {
	dryRunCauses,
	type FieldValidation,
	invalidOptions,
	queryInt,
	queryString,
	writeQuery,
} from './query.js';
import { listOptions } from './reads.js';
import { apiVersionOf, type ResourceInfo } from './resources.js';
import type { Route } from './routing.js';
import { strictErrors, typeError, unknownFields } from './schema.js';
import type { ServerContext } from './server-context.js';
import type { DeleteOptions, SimObject } from './store-api.js';

/** Resources whose PUT creates a missing object (AllowCreateOnUpdate). */
const CREATE_ON_UPDATE = new Set(['leases', 'events', 'services']);
/** Kinds whose strategy refuses a PUT without metadata.resourceVersion (AllowUnconditionalUpdate false). */
const NO_UNCONDITIONAL_UPDATE = new Set(['leases']);
/** Resources whose DELETE answers with the object rather than a Status. */
const RETURNS_OBJECT = new Set(['pods', 'persistentvolumeclaims', 'namespaces', 'services']);

/** Who a write is audited under. */
interface AuditScope {
	verb: string;
	resource: string;
	namespace?: string;
	name?: string;
	who: string;
}

/** Lease times are MicroTime: exactly six fractional digits, as the real decoder demands. */
function checkMicroTimes(info: ResourceInfo, obj: SimObject): void {
	if (info.name !== 'leases' && info.name !== 'events') return;
	const spec = (info.name === 'leases' ? obj.spec : obj) as Record<string, unknown> | undefined;
	const fields = info.name === 'leases' ? ['acquireTime', 'renewTime'] : ['eventTime'];
	for (const f of fields) {
		const v = spec?.[f];
		if (v === undefined || v === null) continue;
		if (
			typeof v !== 'string' ||
			!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/.test(v)
		) {
			throw badRequest(
				`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(String(v).slice(19))} as ".000000"`,
			);
		}
	}
}

/**
 * Decodes a request body as an object of the route's kind: kind and apiVersion checks, then
 * the JSON types of its fields (400 as encoding/json words it; a create or update names the
 * kind as the decoder does, a patch does not), then the namespace check.
 */
export function checkBody(route: Route, body: unknown, isPatch = false): SimObject {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		throw badRequest('the body of the request must be a JSON object');
	}
	const obj = body as SimObject;
	const info = route.info;
	if (obj.kind !== undefined && obj.kind !== info.kind) {
		throw badRequest(
			`${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: kind "${String(obj.kind)}" does not match "${info.kind}"`,
		);
	}
	if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersionOf(info)) {
		throw badRequest(
			`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersionOf(info)})`,
		);
	}
	const mistyped = typeError(info.name, obj);
	if (mistyped) {
		throw badRequest(
			isPatch
				? mistyped
				: `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${mistyped}`,
		);
	}
	obj.apiVersion = apiVersionOf(info);
	obj.kind = info.kind;
	obj.metadata =
		obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : ({} as SimObject['metadata']);
	if (info.namespaced) {
		if (obj.metadata.namespace && route.namespace && obj.metadata.namespace !== route.namespace) {
			throw badRequest(
				'the namespace of the provided object does not match the namespace sent on the request',
			);
		}
		obj.metadata.namespace = route.namespace;
	}
	checkMicroTimes(info, obj);
	return obj;
}

/**
 * Field validation of a decoded body (fieldValidation): unknown fields are always dropped,
 * as decoding into the real types drops them; under Strict, unknown or duplicate fields are
 * a 400 (create and update name the kind, as the decoder does; a patch does not), under
 * Warn each is a Warning header, under Ignore nothing is said.
 */
function checkFields(
	res: ServerResponse,
	route: Route,
	obj: SimObject,
	text: string | undefined,
	mode: FieldValidation,
	isPatch: boolean,
): void {
	const unknown = unknownFields(route.info.name, obj, true);
	if (mode === 'Ignore') return;
	const errors = strictErrors(text, unknown);
	if (errors.length === 0) return;
	if (mode === 'Warn') {
		addWarnings(res, errors);
		return;
	}
	const info = route.info;
	const strict = `strict decoding error: ${errors.join(', ')}`;
	throw badRequest(
		isPatch
			? strict
			: `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${strict}`,
	);
}

/**
 * Runs a store write in the audit scope of a request and records it when it changed nothing.
 * A dry run is not a mutation: it runs without an audit entry (the request log has it).
 */
export function audited<T extends SimObject>(
	ctx: ServerContext,
	scope: AuditScope,
	code: number,
	fn: () => T,
	dryRun = false,
): T {
	if (dryRun) return fn();
	const before = ctx.store.revision();
	try {
		const out = ctx.audit.within({ ...scope, code }, fn);
		if (ctx.store.revision() === before) {
			ctx.audit.recordUnchanged({ ...scope, code }, out.metadata.resourceVersion ?? '');
		}
		return out;
	} catch (err) {
		const c = isSimApiError(err) ? err.code : 500;
		ctx.audit.recordUnchanged({ ...scope, code: c }, '');
		throw err;
	}
}

/** Answers a POST to a collection: creates the object. */
export async function create(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	who: string,
): Promise<void> {
	if (route.sub) throw methodNotAllowed();
	const opts = writeQuery(q, 'CreateOptions');
	const { text, value } = await readJsonText(req);
	const obj = checkBody(route, value);
	checkFields(res, route, obj, text, opts.fieldValidation, false);
	if (obj.metadata.resourceVersion) {
		throw badRequest('resourceVersion should not be set on objects to be created');
	}
	const status = initialStatus(route.info.name);
	if (status && route.info.statusSubresource) obj.status = status;
	const name = obj.metadata.name || `${String(obj.metadata.generateName ?? '')}…`;
	const created = audited(
		ctx,
		{ verb: 'create', resource: route.info.name, namespace: route.namespace, name, who },
		201,
		() => ctx.store.create(route.info.name, obj, { who, dryRun: opts.dryRun }),
		opts.dryRun,
	);
	sendObj(res, 201, created);
}

/** What a write through the main resource or a subresource may change, merged onto the stored object. */
function merged(ctx: ServerContext, route: Route, current: SimObject, next: SimObject): SimObject {
	if (route.sub === 'status') {
		return {
			...current,
			metadata: {
				...current.metadata,
				resourceVersion: next.metadata?.resourceVersion ?? current.metadata.resourceVersion,
			},
			status: next.status,
		};
	}
	if (route.sub === 'finalize') {
		return {
			...current,
			metadata: {
				...current.metadata,
				resourceVersion: next.metadata?.resourceVersion ?? current.metadata.resourceVersion,
			},
			spec: next.spec,
		};
	}
	checkImmutable(route.info.name, current, next, ctx.store.defaultGraceSeconds);
	// Decoding defaults every write, not only a create (a PUT without a strategy gets one).
	if (route.info.name === 'deployments') defaultDeployment(next);
	if (route.info.statusSubresource) {
		const out = { ...next };
		if (current.status === undefined) delete out.status;
		else out.status = current.status;
		return out;
	}
	return next;
}

/** Answers a PUT: replaces the object (or creates it where the resource allows). */
export async function update(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	who: string,
): Promise<void> {
	const opts = writeQuery(q, 'UpdateOptions');
	const dryRun = opts.dryRun;
	const { text, value } = await readJsonText(req);
	const body = checkBody(route, value);
	checkFields(res, route, body, text, opts.fieldValidation, false);
	const name = route.name!;
	if (body.metadata.name && body.metadata.name !== name) {
		throw badRequest(
			`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
		);
	}
	body.metadata.name = name;
	const current = ctx.store.get(route.info.name, route.namespace, name);
	const scope = {
		verb: 'update',
		resource: route.info.name,
		namespace: route.namespace,
		name,
		who,
	};
	if (!current) {
		if (!CREATE_ON_UPDATE.has(route.info.name) || route.sub) throw notFound(route.info.name, name);
		delete body.metadata.resourceVersion;
		const created = audited(
			ctx,
			{ ...scope, verb: 'create' },
			201,
			() => ctx.store.create(route.info.name, body, { who, dryRun }),
			dryRun,
		);
		sendObj(res, 201, created);
		return;
	}
	if (NO_UNCONDITIONAL_UPDATE.has(route.info.name) && !body.metadata.resourceVersion)
		throw unconditionalUpdateRefused(route.info.name, name);
	const next = merged(ctx, route, current, body);
	const written = audited(
		ctx,
		scope,
		200,
		() => ctx.store.update(route.info.name, next, { who, dryRun }),
		dryRun,
	);
	sendObj(res, 200, written);
}

/** Answers a PATCH (JSON, merge or strategic merge patch). */
export async function patch(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	who: string,
): Promise<void> {
	const opts = writeQuery(q, 'PatchOptions');
	const type = contentTypeOfRequest(req);
	const text = await readBody(req);
	let body: unknown;
	if (
		type !== 'application/json-patch+json' &&
		type !== 'application/merge-patch+json' &&
		type !== 'application/strategic-merge-patch+json'
	) {
		throw unsupportedPatchType();
	}
	try {
		body = JSON.parse(text || 'null');
	} catch (e) {
		throw badRequest(`json: ${(e as Error).message}`);
	}
	const name = route.name!;
	const current = ctx.store.get(route.info.name, route.namespace, name);
	if (!current) throw notFound(route.info.name, name);
	let patched: unknown;
	if (type === 'application/json-patch+json') patched = applyJsonPatch(current, body);
	else if (type === 'application/merge-patch+json') patched = applyMergePatch(current, body);
	else patched = applyStrategicMergePatch(current, body);
	const next = checkBody(route, patched, true);
	checkFields(
		res,
		route,
		next,
		type === 'application/json-patch+json' ? undefined : text,
		opts.fieldValidation,
		true,
	);
	if (next.metadata.name !== name) {
		throw badRequest(
			`the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${name})`,
		);
	}
	const out = merged(ctx, route, current, next);
	const written = audited(
		ctx,
		{ verb: 'patch', resource: route.info.name, namespace: route.namespace, name, who },
		200,
		() => ctx.store.update(route.info.name, out, { who, dryRun: opts.dryRun }),
		opts.dryRun,
	);
	sendObj(res, 200, written);
}

async function deleteOptions(
	req: IncomingMessage,
	q: URLSearchParams,
	who: string,
): Promise<DeleteOptions> {
	const body = (await readJson(req)) as
		| {
				gracePeriodSeconds?: number;
				propagationPolicy?: string;
				preconditions?: { uid?: string; resourceVersion?: string };
				dryRun?: string[];
		  }
		| undefined;
	const opts: DeleteOptions = { who };
	// As kube-apiserver's delete handler: DeleteOptions in the body, when there is one, and
	// then no query parameter counts; else the query's.
	const from = body
		? { ...body, dryRun: body.dryRun ?? [] }
		: {
				gracePeriodSeconds: queryInt(q, 'gracePeriodSeconds'),
				propagationPolicy: queryString(q, 'propagationPolicy'),
				dryRun: q.getAll('dryRun'),
			};
	const g = from.gracePeriodSeconds;
	if (g !== undefined && g !== null && Number.isFinite(Number(g)))
		opts.gracePeriodSeconds = Number(g);
	const policy = from.propagationPolicy;
	const dryRun = from.dryRun;
	const causes: StatusCause[] = [];
	if (policy !== undefined && policy !== null) {
		if (!['Orphan', 'Background', 'Foreground'].includes(policy)) {
			causes.push({
				reason: 'FieldValueNotSupported',
				message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
				field: 'propagationPolicy',
			});
		} else opts.propagationPolicy = policy;
	}
	causes.push(...dryRunCauses(Array.isArray(dryRun) ? dryRun.map(String) : [String(dryRun)]));
	if (causes.length > 0) throw invalidOptions('DeleteOptions', causes);
	if (body?.preconditions) opts.preconditions = body.preconditions;
	if (dryRun.length > 0) opts.dryRun = true;
	return opts;
}

function deletedBody(
	ctx: ServerContext,
	route: Route,
	deleted: SimObject,
	dryRun: boolean,
): string {
	const info = route.info;
	if (dryRun) {
		if (deleted.metadata.deletionTimestamp !== undefined) return JSON.stringify(deleted);
	} else {
		const still = ctx.store.getEntry(info.name, deleted.metadata.namespace, deleted.metadata.name);
		if (still && still.obj.metadata.uid === deleted.metadata.uid) return still.json;
	}
	if (RETURNS_OBJECT.has(info.name)) return JSON.stringify(deleted);
	return JSON.stringify({
		kind: 'Status',
		apiVersion: 'v1',
		metadata: {},
		status: 'Success',
		details: {
			name: deleted.metadata.name,
			...(info.group ? { group: info.group } : {}),
			kind: info.name,
			uid: deleted.metadata.uid,
		},
	});
}

/** Answers a DELETE of one object. */
export async function remove(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	who: string,
): Promise<void> {
	if (route.sub) throw methodNotAllowed();
	const opts = await deleteOptions(req, q, who);
	const name = route.name!;
	const deleted = audited(
		ctx,
		{ verb: 'delete', resource: route.info.name, namespace: route.namespace, name, who },
		200,
		() => ctx.store.delete(route.info.name, route.namespace, name, opts),
		opts.dryRun,
	);
	send(res, 200, deletedBody(ctx, route, deleted, opts.dryRun === true));
}

/** Answers a DELETE of a collection: deletes every object the selectors match. */
export async function removeCollection(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	who: string,
): Promise<void> {
	if (route.sub) throw methodNotAllowed();
	if (route.info.name === 'namespaces') throw methodNotAllowed();
	const opts = await deleteOptions(req, q, who);
	const list = listOptions(route, q);
	const out: string[] = [];
	for (const e of ctx.store.listEntries(route.info.name, list)) {
		const o = e.obj;
		try {
			const deleted = audited(
				ctx,
				{
					verb: 'deletecollection',
					resource: route.info.name,
					namespace: o.metadata.namespace,
					name: o.metadata.name,
					who,
				},
				200,
				() => ctx.store.delete(route.info.name, o.metadata.namespace, o.metadata.name, opts),
				opts.dryRun,
			);
			out.push(JSON.stringify(deleted));
		} catch (err) {
			if (!isSimApiError(err) || err.code !== 404) throw err;
		}
	}
	const info = route.info;
	send(
		res,
		200,
		`{"kind":"${info.kind}List","apiVersion":"${apiVersionOf(info)}","metadata":{"resourceVersion":"${ctx.store.revision()}"},"items":[${out.join(',')}]}`,
	);
}
