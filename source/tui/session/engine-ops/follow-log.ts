/**
 * The log view's operation: a member's container log followed into the store, across the
 * member's containers (a crashed container's successor, a replaced pod), in batches of one
 * store update per tick.
 */

import { memberLog } from '../../../engine/index.js';
import { describeError } from '../../../kube/errors.js';
import { sanitize } from '../../../text/sanitize.js';
import { boundedString } from '../../model/bounded-object.js';
import type { PodLogView } from '../../store/store.js';
import { betweenLine, containerOf, hasPreviousContainer, nextContainer } from '../log-follow.js';
import { type OpsContext, openPoolContext } from './context.js';

/** The log view's follow: one at a time. */
export interface LogFollower {
	/** Follows a member's container log (the previous container's with previous) into the log view. */
	follow(member: string, previous: boolean): void;
	/** Stops following. */
	stop(): void;
}

/** One follow of a member's log: where its lines go and how its phase is told. */
interface Follow {
	member: string;
	signal: AbortSignal;
	/** Reads the log until it ends (or the follow is stopped). */
	read(): Promise<void>;
	setPhase(phase: PodLogView['phase'], error?: string | null): void;
}

/** A log follower over a console's operations. */
export function logFollower(ops: OpsContext): LogFollower {
	let current: AbortController | null = null;
	/** The last lines of a member's pod that was replaced while its log was followed. */
	const kept: { lines: { member: string; lines: readonly string[] } | null } = { lines: null };
	return {
		follow(member, previous) {
			current?.abort();
			const follow = new AbortController();
			current = follow;
			const s = ops.store.getState();
			// a replaced pod has no previous container: its predecessor's lines, kept, are shown
			if (previous && kept.lines?.member === member && !hasPreviousContainer(ops.store, member)) {
				s.setPodLog({
					member,
					previous,
					phase: 'ended',
					lines: kept.lines.lines,
					dropped: 0,
					error: null,
					note: 'the replaced pod',
				});
				return;
			}
			s.setPodLog({ member, previous, phase: 'connecting', lines: [], dropped: 0, error: null });
			const f = startFollow(ops, member, previous, follow.signal);
			if (previous)
				void f.read().then(
					() => f.setPhase('ended'),
					(err) => f.setPhase('error', describeError(err)),
				);
			else void followContainers(ops, f, kept);
		},
		stop() {
			current?.abort();
			current = null;
		},
	};
}

/** A follow of the member's log, its lines batched into one store update per tick of the event loop. */
function startFollow(
	ops: OpsContext,
	member: string,
	previous: boolean,
	stopped: AbortSignal,
): Follow {
	const { store } = ops;
	let pending: string[] = [];
	let timer: NodeJS.Timeout | null = null;
	const push = () => {
		timer = null;
		const lines = pending;
		pending = [];
		if (!stopped.aborted) store.getState().appendPodLog(member, lines);
	};
	const flush = () => {
		if (!timer) return;
		clearTimeout(timer);
		push();
	};
	const setPhase = (phase: PodLogView['phase'], error: string | null = null) => {
		if (stopped.aborted) return;
		flush();
		const log = store.getState().podLog;
		if (log?.member === member) store.getState().setPodLog({ ...log, phase, error });
	};
	const ctx = openPoolContext(ops);
	const signal = AbortSignal.any([ops.signal, stopped]);
	const read = () =>
		memberLog(
			ctx,
			member,
			signal,
			(line) => {
				pending.push(sanitize(boundedString(line)));
				timer ??= setTimeout(push, 50);
			},
			{ previous },
			() => setPhase('following'),
		);
	return { member, signal, read, setPhase };
}

/** Follows the member's current container, then each next one, until the follow stops. */
async function followContainers(
	ops: OpsContext,
	f: Follow,
	kept: { lines: { member: string; lines: readonly string[] } | null },
): Promise<void> {
	const { store } = ops;
	const { member, signal } = f;
	let container = containerOf(store.getState().memberObjects(member).pod);
	for (;;) {
		let failure: string | null = null;
		try {
			await f.read();
		} catch (err) {
			failure = describeError(err);
		}
		if (signal.aborted) return;
		// refused while its container runs on (forbidden, a server error): an error, not
		// an end; either way a next container of the member is followed when it comes
		const now = containerOf(store.getState().memberObjects(member).pod);
		const running = failure !== null && now !== null && now.id !== '' && now.id === container?.id;
		f.setPhase(running ? 'error' : 'waiting', failure);
		const next = await nextContainer(store, member, container, signal);
		if (!next || signal.aborted) return;
		const log = store.getState().podLog;
		if (!log || log.member !== member) return;
		const between = betweenLine(member, container, next);
		if (container && next.uid !== container.uid) {
			kept.lines = { member, lines: log.lines };
			store.getState().setPodLog({ ...log, lines: [between], dropped: 0 });
		} else store.getState().appendPodLog(member, [between]);
		container = next;
	}
}
