/**
 * Rights that come back are seen: while something is refused (the header's `✕ forbidden` or
 * `✕ unauthorized` from an operation, keys disabled for RBAC), the console asks the cluster
 * again every ACCESS_RECHECK_MS, and at once each time its watches list and watch
 * successfully again, and clears what is allowed now.
 */

import { type AccessNeed, mayI } from '../../kube/access-review.js';
import type { Kube } from '../../kube/config.js';
import { deniedCommands } from '../commands/access.js';
import { authWord } from '../model/staleness.js';
import type { ConsoleState, ConsoleStore } from '../store/store.js';

/** How often access is asked again while something is refused (ms). */
export const ACCESS_RECHECK_MS = 30_000;

/** What the re-check works with. */
export interface AccessRecheckOptions {
	store: ConsoleStore;
	kube: Kube;
	/** The console's namespace (the keys are checked there). */
	namespace: string;
	/** Whether keys are checked against RBAC (not under --read-only or -A). */
	keys: boolean;
	/** Between two re-checks while something is refused (default ACCESS_RECHECK_MS). */
	intervalMs?: number;
}

/** A running re-check. */
export interface AccessRecheck {
	/** Asks again now (one question at a time; a call while one runs waits for it). */
	check(): Promise<void>;
	stop(): void;
}

/** The right a refusal names, and where: ctpool's sentence or the API server's own. */
export function refusedNeed(
	text: string,
	fallbackNamespace: string,
): { need: AccessNeed; namespace: string } | null {
	const ours = /forbidden: cannot (\S+) ([a-z0-9.-]+)(?:\/([a-z]+))?(?: in namespace (\S+))?/.exec(
		text,
	);
	const theirs =
		/cannot (\S+) resource "([a-z0-9.-]+)"(?: with subresource "([a-z]+)")? in API group "([^"]*)"(?: in the namespace "([^"]+)")?/.exec(
			text,
		);
	if (theirs) {
		const [, verb, resource, subresource, group, namespace] = theirs;
		return {
			need: {
				verb: verb!,
				resource: resource!,
				...(group ? { group } : {}),
				...(subresource ? { subresource } : {}),
			},
			namespace: namespace ?? fallbackNamespace,
		};
	}
	if (!ours) return null;
	const [, verb, full, subresource, namespace] = ours;
	const dot = full!.indexOf('.');
	const resource = dot < 0 ? full! : full!.slice(0, dot);
	const group =
		dot < 0 ? (resource === 'leases' ? 'coordination.k8s.io' : undefined) : full!.slice(dot + 1);
	return {
		need: {
			verb: verb!,
			resource,
			...(group ? { group } : {}),
			...(subresource ? { subresource } : {}),
		},
		namespace: namespace ?? fallbackNamespace,
	};
}

/** Whether anything is shown refused now. */
function refusing(s: ConsoleState, keys: boolean): boolean {
	return s.authProblem !== null || (keys && Object.keys(s.denied).length > 0);
}

/** Whether the operation's refusal is over: its right is granted now, or the credentials are accepted again. */
async function problemOver(kube: Kube, problem: string, namespace: string): Promise<boolean> {
	const refused = refusedNeed(problem, namespace);
	if (refused) return (await mayI(kube, refused.namespace, refused.need)) === true;
	// any answer at all means the credentials are accepted again (a 401 gives none)
	if (authWord(problem) === 'unauthorized')
		return (await mayI(kube, namespace, { verb: 'get', resource: 'configmaps' })) !== null;
	return false;
}

/** Starts re-checking; `check()` also runs it at once (tests, and the first look). */
export function startAccessRecheck(opts: AccessRecheckOptions): AccessRecheck {
	const { store, kube, namespace, keys } = opts;
	let running: Promise<void> | null = null;
	let stopped = false;
	const once = async () => {
		const problem = store.getState().authProblem;
		const [denied, over] = await Promise.all([
			keys ? deniedCommands(kube, namespace) : null,
			problem ? problemOver(kube, problem, namespace) : false,
		]);
		if (stopped) return;
		if (denied) store.getState().setDenied(denied);
		// cleared only if it is still the refusal asked about (a newer one stays)
		if (over && store.getState().authProblem === problem) store.getState().setAuthProblem(null);
	};
	const check = () => {
		running ??= once()
			.catch(() => {})
			.finally(() => {
				running = null;
			});
		return running;
	};
	const timer = setInterval(() => {
		if (refusing(store.getState(), keys)) void check();
	}, opts.intervalMs ?? ACCESS_RECHECK_MS);
	timer.unref?.();
	// a list or watch that succeeds again (the connection back in sync) is a sign to ask now
	const unsubscribe = store.subscribe((s, prev) => {
		if (s.connection.phase === 'synced' && prev.connection.phase !== 'synced' && refusing(s, keys))
			void check();
	});
	return {
		check,
		stop() {
			stopped = true;
			clearInterval(timer);
			unsubscribe();
		},
	};
}
