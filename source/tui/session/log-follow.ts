/**
 * The log view's follow of a member's container, across its restarts and its replacement:
 * when the stream ends (the container ended, or the pod went), the view waits for the next
 * container of the member (a new container ID in the watched pod) and follows that one, a
 * line saying what happened in between. A restarted container's lines go on under the
 * earlier ones; a replaced pod starts a new log, and the last lines of the old one are kept
 * (`p` shows them, since the new pod has no previous container to ask the API for).
 */

import type { PodObject } from '../../pool/objects.js';
import type { ConsoleStore } from '../store/store.js';

/** The container a log follows: its pod's uid and its container ID (empty: not started). */
export interface FollowedContainer {
	uid: string;
	id: string;
	restarts: number;
}

/** The member's container as the watched pod tells it, or null without a pod. */
export function containerOf(pod: PodObject | null): FollowedContainer | null {
	if (!pod) return null;
	const cs = pod.status?.containerStatuses?.[0];
	return {
		uid: typeof pod.metadata.uid === 'string' ? pod.metadata.uid : '',
		id: typeof cs?.containerID === 'string' ? cs.containerID : '',
		restarts:
			typeof cs?.restartCount === 'number' && Number.isSafeInteger(cs.restartCount)
				? Math.max(0, cs.restartCount)
				: 0,
	};
}

/**
 * Waits until the member has a started container other than `after` (a restart or a new
 * pod); resolves with it, or null when signal aborts.
 */
export function nextContainer(
	store: ConsoleStore,
	member: string,
	after: FollowedContainer | null,
	signal: AbortSignal,
): Promise<FollowedContainer | null> {
	const fresh = (): FollowedContainer | null => {
		const c = containerOf(store.getState().memberObjects(member).pod);
		if (!c || c.id === '') return null;
		return after && c.uid === after.uid && c.id === after.id ? null : c;
	};
	return new Promise((resolve) => {
		const now = fresh();
		if (now || signal.aborted) {
			resolve(signal.aborted ? null : now);
			return;
		}
		const done = (c: FollowedContainer | null) => {
			unsubscribe();
			signal.removeEventListener('abort', onAbort);
			resolve(c);
		};
		const onAbort = () => done(null);
		const unsubscribe = store.subscribe(() => {
			const c = fresh();
			if (c) done(c);
		});
		signal.addEventListener('abort', onAbort, { once: true });
	});
}

/** The line put between two containers' logs. */
export function betweenLine(
	member: string,
	before: FollowedContainer | null,
	next: FollowedContainer,
): string {
	if (before && before.uid !== next.uid)
		return `── ${member} was replaced: a new pod's log (p: the replaced pod's last lines) ──`;
	return `── ${member}'s container restarted (restart ${next.restarts}) ──`;
}

/** Whether the member's current pod has had a container before the running one. */
export function hasPreviousContainer(store: ConsoleStore, member: string): boolean {
	const c = containerOf(store.getState().memberObjects(member).pod);
	return c !== null && c.restarts > 0;
}
