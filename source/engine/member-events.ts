/** The recent Kubernetes Events of a member (its pod, PVC and Lease), listed on demand. */

import { apiFailure } from '../kube/errors.js';
import { plainObject } from '../kube/objects.js';
import { leaseName, pvcName, toMillis } from '../pool/index.js';
import type { EngineContext } from './context.js';

/** One Kubernetes Event as the details screen lists it (text not yet sanitised). */
export interface EventLine {
	time: number | null;
	type: string;
	reason: string;
	object: string;
	message: string;
	count: number;
}

interface RawEvent {
	type?: string;
	reason?: string;
	message?: string;
	count?: number;
	firstTimestamp?: string;
	lastTimestamp?: string;
	eventTime?: string;
	metadata?: { creationTimestamp?: string };
	involvedObject?: { kind?: string; name?: string };
}

function line(e: RawEvent): EventLine {
	const time =
		toMillis(e.lastTimestamp) ??
		toMillis(e.eventTime) ??
		toMillis(e.firstTimestamp) ??
		toMillis(e.metadata?.creationTimestamp);
	const kind = (e.involvedObject?.kind ?? '').toLowerCase();
	return {
		time,
		type: e.type ?? '',
		reason: e.reason ?? '',
		object: `${kind ? `${kind}/` : ''}${e.involvedObject?.name ?? ''}`,
		message: e.message ?? '',
		count: e.count ?? 1,
	};
}

/**
 * The Events about a member's pod, PVC and Lease, oldest first, at most limit. Asks the
 * server to filter by involvedObject.name; a server that cannot is asked for the namespace's
 * Events, filtered here.
 */
export async function memberEvents(
	ctx: EngineContext,
	member: string,
	limit = 50,
): Promise<EventLine[]> {
	const { kube, namespace } = ctx;
	const names = [member, pvcName(member), leaseName(member)];
	let items: RawEvent[] = [];
	try {
		const lists = await Promise.all(
			names.map((name) =>
				kube.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` }),
			),
		);
		items = lists.flatMap((l) => plainObject<{ items: RawEvent[] }>(l).items ?? []);
	} catch (err) {
		if (apiFailure(err)?.code !== 400) throw err;
		const all = plainObject<{ items: RawEvent[] }>(
			await kube.core.listNamespacedEvent({ namespace }),
		);
		items = (all.items ?? []).filter((e) => names.includes(e.involvedObject?.name ?? ''));
	}
	const lines = items.map(line);
	lines.sort((a, b) => (a.time ?? 0) - (b.time ?? 0));
	return lines.slice(-limit);
}
