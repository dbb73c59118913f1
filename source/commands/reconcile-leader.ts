/** reconcile --watch --leader-elect: its flags, their checks, and the election wired to the pool controller. */

import type { LeaderElector } from '../controller/leader-election.js';
import type { PoolController } from '../controller/pool-controller.js';
import type { Kube } from '../kube/config.js';
import { isDnsLabel, isDnsSubdomain, memberOfLease } from '../pool/names.js';
import { sanitize } from '../text/sanitize.js';
import { stringFlag } from './command.js';
import { usageError } from './failure.js';
import type { ParsedArgs } from './flags.js';
import { type CommandIo, println } from './io.js';
import { parseDuration } from './values.js';

/** The flags of leader election (kube-controller-manager's names). */
export const LEADER_FLAGS = {
	leaderElect: { type: 'boolean' },
	leaderElectLease: { type: 'string' },
	leaderElectNamespace: { type: 'string' },
	leaderElectLeaseDuration: { type: 'string' },
	leaderElectRenewDeadline: { type: 'string' },
	leaderElectRetryPeriod: { type: 'string' },
} as const;

/** Their help lines. */
export const LEADER_HELP = `  --leader-elect    with --watch: of the processes started so (the Deployment's replicas),
                    one reconciles and the others stand by with their watches warm, taking
                    over within the lease duration when it stops (a Lease lock, as
                    kube-controller-manager's); ctpool_leader says which
  --leader-elect-lease NAME
                    the Lease of the election (default ctpool-reconciler)
  --leader-elect-namespace NS
                    where that Lease lives (default the namespace: -n, in a pod its own)
  --leader-elect-lease-duration D, --leader-elect-renew-deadline D,
  --leader-elect-retry-period D
                    how long a leader's Lease holds without renewal (15s), how long a leader
                    keeps trying to renew before it stops reconciling (10s), how often
                    everyone tries (2s); duration > deadline > 1.2 x period`;

/** Leader election as asked on the command line. */
export interface LeaderSettings {
	lease: string;
	/** undefined: the command's namespace. */
	namespace: string | undefined;
	leaseDurationMs: number;
	renewDeadlineMs: number;
	retryPeriodMs: number;
}

const DURATIONS = [
	['leaderElectLeaseDuration', 'leader-elect-lease-duration', '15s'],
	['leaderElectRenewDeadline', 'leader-elect-renew-deadline', '10s'],
	['leaderElectRetryPeriod', 'leader-elect-retry-period', '2s'],
] as const;

/** Reads and checks the leader election flags: null without --leader-elect; a usage error names the fix. */
export function parseLeaderFlags(args: ParsedArgs, watch: boolean): LeaderSettings | null {
	const on = args.flags.leaderElect === true;
	const given = Object.keys(LEADER_FLAGS).filter(
		(k) => k !== 'leaderElect' && stringFlag(args, k) !== undefined,
	);
	if (!on && given.length > 0)
		throw usageError('reconcile', '--leader-elect-* settings only go with --leader-elect');
	if (!on) return null;
	if (!watch) throw usageError('reconcile', '--leader-elect only goes with --watch');
	const lease = stringFlag(args, 'leaderElectLease') ?? 'ctpool-reconciler';
	if (!isDnsSubdomain(lease) || memberOfLease(lease) !== null)
		throw usageError(
			'reconcile',
			`--leader-elect-lease ${JSON.stringify(sanitize(lease).slice(0, 80))} is not a Lease name ctpool may use: a DNS subdomain (lower case, digits, '-', '.') not named like a member's Lease (corral-vdi-ct-...)`,
		);
	const namespace = stringFlag(args, 'leaderElectNamespace');
	if (namespace !== undefined && !isDnsLabel(namespace))
		throw usageError(
			'reconcile',
			`--leader-elect-namespace ${JSON.stringify(sanitize(namespace).slice(0, 80))} is not a namespace name (a DNS label: lower case, digits, '-')`,
		);
	const [leaseDurationMs, renewDeadlineMs, retryPeriodMs] = DURATIONS.map(([key, flag, dflt]) =>
		parseDuration('reconcile', flag, stringFlag(args, key) ?? dflt, 1000, 3_600_000),
	) as [number, number, number];
	if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > 1.2 * retryPeriodMs))
		throw usageError(
			'reconcile',
			'the leader election needs --leader-elect-lease-duration > --leader-elect-renew-deadline > 1.2 x --leader-elect-retry-period (the defaults 15s, 10s, 2s are)',
		);
	return { lease, namespace, leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

/**
 * Elects the leader among the reconcilers: the pool controller reconciles only while this
 * process leads. One line on stderr at each change: leading, standing down, another leader.
 */
export async function electLeader(
	settings: LeaderSettings,
	kube: Kube,
	defaultNamespace: string,
	pools: PoolController,
	io: CommandIo,
): Promise<LeaderElector> {
	const { candidateIdentity, startLeaderElection } = await import(
		'../controller/leader-election.js'
	);
	const identity = candidateIdentity();
	const namespace = settings.namespace ?? defaultNamespace;
	const where = `Lease ${namespace}/${settings.lease}`;
	const say = (text: string) => println(io.stderr, `ctpool: ${text}`);
	say(
		`leader election on ${where} as ${sanitize(identity)}: standing by (watches warm) until it leads`,
	);
	return startLeaderElection({
		kube,
		namespace,
		name: settings.lease,
		identity,
		leaseDurationMs: settings.leaseDurationMs,
		renewDeadlineMs: settings.renewDeadlineMs,
		retryPeriodMs: settings.retryPeriodMs,
		onStartedLeading() {
			say(`leading (${where}, ${sanitize(identity)}): reconciling`);
			pools.lead();
		},
		onStoppedLeading(why) {
			if (why === 'stopping') return void pools.standDown();
			say(`no longer leading (${sanitize(why)}): stopped reconciling; standing by`);
			void pools.standDown();
		},
		onNewLeader(holder) {
			if (holder) say(`the leader is ${sanitize(holder)} (${where}); standing by`);
		},
		onTryFailed(message) {
			say(`leader election: cannot read or write ${where}: ${sanitize(message)}; trying again`);
		},
	});
}
