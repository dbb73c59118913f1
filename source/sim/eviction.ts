/**
 * The Eviction subresource (`POST pods/NAME/eviction`, policy/v1 Eviction) that `kubectl
 * drain` uses: with no PodDisruptionBudgets served, an eviction is a graceful delete of the
 * pod honouring the Eviction's DeleteOptions; the kubelet then stops the pod.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, notFound } from './errors.js';
import { readJson, send } from './http-io.js';
import { dryRunCauses, invalidOptions } from './query.js';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';
import type { DeleteOptions } from './store-api.js';
import { audited } from './writes.js';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

/** Answers an Eviction: 201 Success once the pod's graceful deletion has started. */
export async function evict(
	ctx: ServerContext,
	req: IncomingMessage,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
	who: string,
): Promise<void> {
	const name = route.name!;
	const body = rec(await readJson(req));
	if (body.kind !== undefined && body.kind !== 'Eviction') {
		throw badRequest(
			`Eviction in version "v1" cannot be handled as a Eviction: kind "${String(body.kind)}" does not match "Eviction"`,
		);
	}
	const meta = rec(body.metadata);
	if (meta.name !== undefined && meta.name !== name) {
		throw badRequest('name in URL does not match name in Eviction object');
	}
	const d = rec(body.deleteOptions);
	const create = dryRunCauses(q.getAll('dryRun'));
	if (create.length > 0) throw invalidOptions('CreateOptions', create);
	const dryRunValues = Array.isArray(d.dryRun) ? d.dryRun.map(String) : [];
	const del = dryRunCauses(dryRunValues);
	if (del.length > 0) throw invalidOptions('DeleteOptions', del);
	const dryRun = dryRunValues.length > 0 || q.getAll('dryRun').length > 0;
	if (!ctx.store.get('pods', route.namespace, name)) throw notFound('pods', name);
	const opts: DeleteOptions = { who, ...(dryRun ? { dryRun } : {}) };
	if (typeof d.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = d.gracePeriodSeconds;
	if (typeof d.propagationPolicy === 'string') opts.propagationPolicy = d.propagationPolicy;
	const pre = rec(d.preconditions);
	if (pre.uid !== undefined || pre.resourceVersion !== undefined) {
		opts.preconditions = {
			...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
			...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
		};
	}
	audited(
		ctx,
		{ verb: 'delete', resource: 'pods', namespace: route.namespace, name, who },
		201,
		() => ctx.store.delete('pods', route.namespace, name, opts),
		dryRun,
	);
	send(res, 201, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}');
}
