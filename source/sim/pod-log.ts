/** The pods/log subresource of the simulated cluster. */

import type { ServerResponse } from 'node:http';
import { badRequest, notFound, pathNotFound } from './errors.js';
import { send } from './http-io.js';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';

/** Answers GET pods/NAME/log: the checks a real server makes, then an (empty) log. */
export function podLog(
	ctx: ServerContext,
	res: ServerResponse,
	route: Route,
	q: URLSearchParams,
): void {
	if (route.info.name !== 'pods' || !route.name) throw pathNotFound();
	const pod = ctx.store.getEntry('pods', route.namespace, route.name)?.obj;
	if (!pod) throw notFound('pods', route.name);
	const spec = (pod.spec ?? {}) as { containers?: { name: string }[] };
	const names = (spec.containers ?? []).map((c) => c.name);
	let container = q.get('container') ?? '';
	if (!container) {
		if (names.length !== 1) {
			throw badRequest(
				`a container name must be specified for pod ${route.name}, choose one of: [${names.join(' ')}]`,
			);
		}
		container = names[0]!;
	}
	if (!names.includes(container)) {
		throw badRequest(`container ${container} is not valid for pod ${route.name}`);
	}
	const statuses =
		((pod.status as { containerStatuses?: unknown[] } | undefined)?.containerStatuses as
			| { name: string; state?: { waiting?: { reason?: string } } }[]
			| undefined) ?? [];
	const cs = statuses.find((s) => s.name === container);
	if (!cs || cs.state?.waiting) {
		const reason = cs?.state?.waiting?.reason ?? 'ContainerCreating';
		throw badRequest(
			`container "${container}" in pod "${route.name}" is waiting to start: ${reason}`,
		);
	}
	send(res, 200, '', 'text/plain');
}
