/**
 * Leader election with a Lease lock, as client-go's leaderelection does it, so that of the
 * reconciler's replicas one writes and the others stand by warm (their watches and caches
 * kept). The lock is a coordination.k8s.io/v1 Lease with client-go's fields: holderIdentity,
 * leaseDurationSeconds, acquireTime, renewTime, leaseTransitions.
 *
 * - A candidate tries every retry period (with jitter): it creates the Lease, or takes it over
 *   with an update carrying the resourceVersion it read (compare-and-swap: of two candidates
 *   one wins) once the holder has not renewed for a lease duration. Like client-go, it judges
 *   that by its own clock, from when it last saw the Lease change, never by the times written
 *   in it (clocks differ; anyone may write a Lease).
 * - The leader renews every retry period; if no renewal worked for the renew deadline, it
 *   stops leading at once (a timer, so a request that hangs cannot keep it leading).
 * - Stopped while leading (Ctrl-C, SIGTERM at a rolling update), it releases the Lease (an
 *   empty holder, as client-go's ReleaseOnCancel) so that a standby takes over at its next try.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { V1Lease } from '@kubernetes/client-node';
import type { Kube } from '../kube/config.js';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.js';
import { reportHandlerError } from '../kube/handler-errors.js';
import { plainObject } from '../kube/objects.js';
import { formatMicroTime } from '../pool/lease.js';
import { bounded } from '../text/sanitize.js';
import { type Clock, systemClock, type TimerHandle } from './clock.js';

/** client-go's defaults (and kube-controller-manager's): 15 s, 10 s, 2 s. */
export const LEADER_ELECTION_DEFAULTS = {
	leaseDurationMs: 15_000,
	renewDeadlineMs: 10_000,
	retryPeriodMs: 2_000,
} as const;

/** The Lease the reconcilers elect their leader with, unless told another. */
export const DEFAULT_LEADER_LEASE = 'ctpool-reconciler';

/** client-go's JitterFactor: a candidate waits retryPeriod × (1 + up to 1.2). */
const JITTER = 1.2;

/** The longest holder identity read from a Lease that is kept as it is. */
const IDENTITY_MAX = 256;

/** Settings of a leader election. */
export interface LeaderElectionOptions {
	kube: Kube;
	/** Where the Lease lives. */
	namespace: string;
	/** The Lease's name. */
	name: string;
	/** This candidate's identity (unique per process: see candidateIdentity). */
	identity: string;
	leaseDurationMs: number;
	renewDeadlineMs: number;
	retryPeriodMs: number;
	clock?: Clock;
	/** Random numbers of the jitter (tests give their own). */
	random?: () => number;
	/** This candidate leads now: start writing. */
	onStartedLeading(): void;
	/** This candidate no longer leads: stop writing at once. */
	onStoppedLeading(why: string): void;
	/** Another holder was seen (its identity; '' for a released Lease). */
	onNewLeader?(identity: string): void;
	/** A try failed for another reason than losing a race (told when its text changes). */
	onTryFailed?(message: string): void;
}

/** A running leader election. */
export interface LeaderElector {
	/** Whether this candidate leads now. */
	isLeader(): boolean;
	/** The holder last seen ('' when none). */
	leader(): string;
	/** Stops trying; a leader releases the Lease first. */
	stop(): Promise<void>;
}

/**
 * The identity of this process as a candidate: the pod's name (the downward API's POD_NAME,
 * else HOSTNAME, which is the pod's name in a pod, else the host name), `_` and a random
 * suffix, as client-go's users make it: a restarted pod never mistakes its old Lease for its
 * own.
 */
export function candidateIdentity(
	env: Readonly<Record<string, string | undefined>> = process.env,
): string {
	let host = env.POD_NAME || env.HOSTNAME || '';
	if (!host)
		try {
			host = hostname();
		} catch {
			host = 'ctpool';
		}
	const clean = host.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 200) || 'ctpool';
	return `${clean}_${randomBytes(4).toString('hex')}`;
}

/** The Lease's spec as read: only what election needs, bounded. */
interface LockRecord {
	holder: string;
	durationMs: number;
	acquireTime: string | undefined;
	transitions: number;
	resourceVersion: string;
	/** The spec as read, to see whether it changed since the last look. */
	raw: string;
}

/** Reads the parts of a Lease election uses; a field of the wrong shape counts as absent. */
export function parseLockRecord(lease: unknown, fallbackDurationMs: number): LockRecord {
	const o = (lease && typeof lease === 'object' ? lease : {}) as {
		metadata?: { resourceVersion?: unknown };
		spec?: Record<string, unknown>;
	};
	const spec = o.spec && typeof o.spec === 'object' ? o.spec : {};
	const holder =
		typeof spec.holderIdentity === 'string' ? spec.holderIdentity.slice(0, IDENTITY_MAX) : '';
	const seconds = spec.leaseDurationSeconds;
	const durationMs =
		typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 1 && seconds <= 86_400
			? seconds * 1000
			: fallbackDurationMs;
	const t = spec.leaseTransitions;
	const transitions = typeof t === 'number' && Number.isInteger(t) && t >= 0 && t < 2 ** 31 ? t : 0;
	const acquired = spec.acquireTime;
	let raw = '';
	try {
		raw = JSON.stringify(spec).slice(0, 4096);
	} catch {
		raw = '';
	}
	const rv = o.metadata?.resourceVersion;
	return {
		holder,
		durationMs,
		acquireTime: typeof acquired === 'string' ? acquired : undefined,
		transitions,
		resourceVersion: typeof rv === 'string' ? rv : '',
		raw,
	};
}

/** Starts electing; runs until stop(). */
export function startLeaderElection(opts: LeaderElectionOptions): LeaderElector {
	const clock = opts.clock ?? systemClock;
	const random = opts.random ?? Math.random;
	const { namespace, name, identity } = opts;
	const seconds = Math.max(1, Math.round(opts.leaseDurationMs / 1000));
	let leading = false;
	let stopped = false;
	let holder = '';
	/** The Lease's spec as last seen, and when (this clock) it was first seen so. */
	let observed: { raw: string; at: number } | null = null;
	let lastRenew = 0;
	let timer: TimerHandle | null = null;
	let deadline: TimerHandle | null = null;
	let running: Promise<void> | null = null;
	let lastFailure = '';
	/** The lease duration the holder wrote, as last read. */
	let heldForMs = opts.leaseDurationMs;

	const body = (spec: V1Lease['spec'], resourceVersion?: string): V1Lease => ({
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: {
			name,
			namespace,
			...(resourceVersion ? { resourceVersion } : {}),
			labels: { 'app.kubernetes.io/name': 'ctpool-reconciler' },
		},
		spec,
	});
	const micro = (ms: number) => formatMicroTime(ms) as unknown as Date;

	const see = (raw: string, who: string) => {
		if (observed?.raw !== raw) observed = { raw, at: clock.now() };
		if (who !== holder) {
			holder = who;
			if (who !== identity) tell(() => opts.onNewLeader?.(who), 'onNewLeader');
		}
	};

	/** One try: resolves true when this candidate holds the Lease now. */
	const tryAcquireOrRenew = async (): Promise<boolean> => {
		const now = clock.now();
		let current: LockRecord | null = null;
		try {
			current = parseLockRecord(
				plainObject(await opts.kube.coordination.readNamespacedLease({ name, namespace })),
				opts.leaseDurationMs,
			);
		} catch (err) {
			if (!isNotFound(err)) throw err;
		}
		const spec = {
			holderIdentity: identity,
			leaseDurationSeconds: seconds,
			renewTime: micro(now),
		};
		if (!current) {
			try {
				const made = await opts.kube.coordination.createNamespacedLease({
					namespace,
					body: body({ ...spec, acquireTime: micro(now), leaseTransitions: 0 }),
				});
				see(parseLockRecord(plainObject(made), opts.leaseDurationMs).raw, identity);
				return true;
			} catch (err) {
				if (isAlreadyExists(err)) return false;
				throw err;
			}
		}
		see(current.raw, current.holder);
		heldForMs = current.durationMs;
		const mine = current.holder === identity;
		if (current.holder && !mine && observed && observed.at + current.durationMs > clock.now())
			return false; // held, and renewed within its duration as this clock saw it
		try {
			const written = await opts.kube.coordination.replaceNamespacedLease({
				name,
				namespace,
				body: body(
					{
						...spec,
						acquireTime:
							mine && current.acquireTime ? (current.acquireTime as unknown as Date) : micro(now),
						leaseTransitions: current.transitions + (mine ? 0 : 1),
					},
					current.resourceVersion,
				),
			});
			see(parseLockRecord(plainObject(written), opts.leaseDurationMs).raw, identity);
			return true;
		} catch (err) {
			if (isConflict(err) || isNotFound(err)) return false;
			throw err;
		}
	};

	const lose = (why: string) => {
		if (!leading) return;
		leading = false;
		if (deadline) clock.clearTimeout(deadline);
		deadline = null;
		tell(() => opts.onStoppedLeading(why), 'onStoppedLeading');
	};

	/** Restarts the renew deadline: not renewed by then, this candidate stops leading. */
	const armDeadline = () => {
		if (deadline) clock.clearTimeout(deadline);
		deadline = clock.setTimeout(
			() => lose(`the Lease was not renewed for ${Math.round(opts.renewDeadlineMs / 1000)} s`),
			opts.renewDeadlineMs,
		);
	};

	const tick = async () => {
		let ok = false;
		try {
			ok = await tryAcquireOrRenew();
			lastFailure = '';
		} catch (err) {
			const text = bounded(err instanceof Error ? err.message : String(err), 300);
			if (text !== lastFailure) tell(() => opts.onTryFailed?.(text), 'onTryFailed');
			lastFailure = text;
		}
		if (stopped) return;
		if (ok) {
			lastRenew = clock.now();
			if (!leading) {
				leading = true;
				tell(() => opts.onStartedLeading(), 'onStartedLeading');
			}
			armDeadline();
		} else if (leading && holder !== identity) lose(`the Lease is held by ${holder || 'nobody'}`);
		else if (leading && clock.now() - lastRenew >= opts.renewDeadlineMs)
			lose(`the Lease was not renewed for ${Math.round(opts.renewDeadlineMs / 1000)} s`);
	};

	/**
	 * The wait before the next try: the retry period for a leader; with jitter for a
	 * candidate, but no later than the moment the holder's Lease runs out as this clock sees it
	 * (a standby takes over without waiting out one more retry period).
	 */
	const nextWait = (): number => {
		if (leading) return opts.retryPeriodMs;
		const jittered = opts.retryPeriodMs * (1 + random() * JITTER);
		if (!holder || holder === identity || !observed) return jittered;
		const runsOut = observed.at + heldForMs - clock.now();
		return Math.min(jittered, Math.max(0, runsOut) + 1);
	};
	const schedule = () => {
		if (stopped) return;
		timer = clock.setTimeout(loop, nextWait());
	};
	const loop = () => {
		timer = null;
		running = tick().finally(() => {
			running = null;
			schedule();
		});
	};

	const release = async () => {
		try {
			const lease = await opts.kube.coordination.readNamespacedLease({ name, namespace });
			const current = parseLockRecord(plainObject(lease), opts.leaseDurationMs);
			if (current.holder !== identity) return;
			const now = micro(clock.now());
			await opts.kube.coordination.replaceNamespacedLease({
				name,
				namespace,
				body: body(
					{
						holderIdentity: '',
						leaseDurationSeconds: 1,
						acquireTime: now,
						renewTime: now,
						leaseTransitions: current.transitions,
					},
					current.resourceVersion,
				),
			});
		} catch {
			// not released: the Lease expires after its duration instead
		}
	};

	loop();
	return {
		isLeader: () => leading,
		leader: () => holder,
		async stop() {
			if (stopped) return;
			stopped = true;
			if (timer) clock.clearTimeout(timer);
			timer = null;
			await running;
			const was = leading;
			lose('stopping');
			if (was) await release();
		},
	};
}

/** Calls a listener; its failure is told in one line and goes no further. */
function tell(fn: () => void, what: string): void {
	try {
		fn();
	} catch (err) {
		reportHandlerError(`leader election's ${what}`, err);
	}
}
