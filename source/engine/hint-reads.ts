/**
 * Reads for the console's "what to do now" hints: the room on every node (cluster-scoped
 * reads, optional permissions) and the last log lines of a crashed container. Nothing here
 * changes the cluster; a denied read is an error naming the permission it needs.
 */

import { describeError } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { CONTAINER_NAME } from '../pool/names.js';
import { type NodeRoom, nodeRooms, type PlacedPod } from '../pool/node-room.js';
import { type ObjectOfKind, readObjects } from '../pool/object-shape.js';
import type { EngineContext } from './context.js';

/** The objects of a list that read (pool/object-shape.ts); the hint leaves out the rest. */
function listed<K extends 'nodes' | 'pods'>(kind: K, items: unknown): ObjectOfKind[K][] {
	return readObjects(kind, Array.isArray(items) ? items : []).objects;
}

/** Pods that take room on a node: bound, and not ended. */
const PLACED_PODS = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

/**
 * The room on every node: allocatable less the requests of the pods bound to it. Needs list
 * on nodes and on pods in all namespaces (optional permissions: see NODE_READ_RULES); a
 * denial throws an Error whose message names what was refused.
 */
export async function readNodeRooms(ctx: EngineContext): Promise<NodeRoom[]> {
	const [nodes, pods] = await Promise.all([
		ctx.kube.core.listNode().then(
			(l) => listed('nodes', plainObject<{ items?: unknown }>(l).items),
			(err) => {
				throw new Error(describeError(err, { verb: 'list', resource: 'nodes' }));
			},
		),
		ctx.kube.core.listPodForAllNamespaces({ fieldSelector: PLACED_PODS }).then(
			(l) => listed('pods', plainObject<{ items?: unknown }>(l).items) as PlacedPod[],
			(err) => {
				throw new Error(describeError(err, { verb: 'list', resource: 'pods (in all namespaces)' }));
			},
		),
	]);
	return nodeRooms(nodes, pods);
}

/**
 * The last lines of the member container's previous run (the one that crashed), at most
 * `lines`; the current run's when there is no previous one. Not sanitised: the caller
 * cleans what it shows.
 */
export async function readLastLogLines(
	ctx: EngineContext,
	member: string,
	lines: number,
): Promise<string[]> {
	const read = (previous: boolean) =>
		ctx.kube.core.readNamespacedPodLog({
			name: member,
			namespace: ctx.namespace,
			container: CONTAINER_NAME,
			previous,
			tailLines: lines,
			limitBytes: 64 * 1024,
		});
	let text: string;
	try {
		text = await read(true);
	} catch (err) {
		try {
			text = await read(false);
		} catch {
			throw new Error(
				describeError(err, {
					verb: 'get',
					resource: 'pods/log',
					namespace: ctx.namespace,
					name: member,
				}),
			);
		}
	}
	return String(text ?? '')
		.split('\n')
		.map((l) => l.replace(/\r$/, ''))
		.filter((l, i, all) => l !== '' || i < all.length - 1)
		.slice(-lines);
}
