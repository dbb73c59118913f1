/**
 * The pool commands' specs (name, summary, flags, help), apart from the code that runs them:
 * the command line reads every spec (its help, its flag kinds) and loads a command's code only
 * to run that command, so the console's start does not load them all.
 */

import { AUDIT_ACTIONS, FORCE_RELEASE_FILTER } from '../pool/audit.js';
import type { CommandSpec } from './command.js';
import { GLOBAL_HELP } from './flags.js';
import { LEADER_FLAGS, LEADER_HELP } from './reconcile-leader.js';

/** The apply command. */
export const applyCommand: CommandSpec = {
	name: 'apply',
	summary: 'define a pool or change its definition, then reconcile it once',
	mutates: true,
	flags: {
		image: { type: 'string' },
		size: { type: 'string' },
		cpu: { type: 'string' },
		mem: { type: 'string' },
		disk: { type: 'string' },
		storageClass: { type: 'string' },
		privileged: { type: 'boolean' },
		init: { type: 'boolean' },
		mode: { type: 'string' },
		maxUnavailable: { type: 'string' },
		wait: { type: 'boolean' },
	},
	help: `
Usage: ctpool apply <pool> --image IMAGE --size N [flags]

Define a pool, or change its definition, then reconcile it once. A flag left out keeps
the pool's current value; --image and --size are needed when the pool is new. Every member
is a normal Corral Container (CT): a pod and a data PVC as Corral's ct create makes them.

Flags
  --image IMAGE          image of every member, such as ghcr.io/example/desktop:1
  --size N               number of members, 1 to 1000
  --cpu N                whole cores of each member (default 1), as for every Corral
                         CT: a positive integer ("500m" is refused)
  --mem Q                memory of each member (default 512Mi)
  --disk Q               size of each member's data PVC (default 5Gi)
  --storage-class NAME   StorageClass of the data PVCs (default: the cluster's default)
  --privileged           privileged members keep their root file system on the PVC:
                         Corral's bootstrap copies the image's root onto it once and
                         chroots there (--no-privileged turns it off)
  --init                 run the image's entrypoint instead of sleep infinity
                         (unprivileged members; a privileged one always runs the
                         bootstrap) (--no-init)
  --mode ephemeral       the only supported mode
  --max-unavailable N|P% replace the members of a changed source in waves of at most this
                         many unclaimed members: a number, or a percentage of the size (at
                         least 1); members waiting for their wave stay claimable with the
                         old image. Without it, every unclaimed member is replaced at
                         once. Claimed members stay until released
  --no-wait              with waves: replace the first one and leave the rest to a
                         watching reconciler (by default apply waits for each wave to be
                         Ready and goes on to the end, printing its progress)

${GLOBAL_HELP}

Examples
  ctpool apply desk --image ghcr.io/example/desktop:1 --size 3 --mem 2Gi
  ctpool apply desk --image ghcr.io/example/desktop:2 --size 5
  ctpool apply desk --image ghcr.io/example/desktop:3 --max-unavailable 2
`,
};

/** The reconcile command. */
export const reconcileCommand: CommandSpec = {
	name: 'reconcile',
	summary: 'create, start, replace and delete members to match the definition',
	// a dry run changes nothing: it goes with --read-only
	mutates: (flags) => flags.dryRun !== true,
	flags: {
		watch: { type: 'boolean' },
		verbose: { type: 'boolean', shortFlag: 'v' },
		plan: { type: 'boolean' },
		dryRun: { type: 'boolean' },
		output: { type: 'string', shortFlag: 'o' },
		interval: { type: 'string' },
		all: { type: 'boolean' },
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
		metricsAddr: { type: 'string' },
		wait: { type: 'boolean' },
		...LEADER_FLAGS,
	},
	help: `
Usage: ctpool reconcile <pool> [--watch] [--interval 30s] [--no-wait]
       ctpool reconcile <pool>|--all [-v|--plan] [--dry-run] [-o json]
       ctpool reconcile --all [-A] [--watch] [--interval 30s] [--metrics-addr HOST:PORT]
                        [--leader-elect]

Bring the pool in line with its definition: create missing members, start stopped ones,
replace unclaimed members that drifted or failed, delete unclaimed members above the size,
and record the status. A claimed member is never destroyed. Safe to run at any time, and
from two places at once.

Flags
  --watch           keep reconciling: every interval, and soon after a change in the pool;
                    a pool that fails is retried with backoff (from 5 ms, doubling, to 5
                    min; changes in the pool do not bring a retry forward, a change of its
                    definition does); a definition that cannot work (invalid, persistent,
                    missing) is reported once and tried again when it changes; an error
                    nothing handled is one line, and the watch goes on; Ctrl-C stops (exit 0)
  --interval D      time between two reconciles of a pool in watch mode (default 30s)
  --all             every pool in the namespace (pools defined or deleted while it watches
                    are picked up); without --watch, one pass (a rollout in waves carried
                    to its end, pool by pool, unless --no-wait), exit 1 if any pool failed
  -A, --all-namespaces
                    with --all: every pool in every namespace the identity can list
  --metrics-addr A  with --watch: serve /metrics (Prometheus), /healthz and /readyz on
                    HOST:PORT and nowhere else: HOST is an IP address ([::1] for IPv6;
                    0.0.0.0 is every IPv4 address) or a name bound to the one address it
                    resolves to; port 0 picks a free one; the address is printed on stderr.
                    The metrics are counts per pool, never a holder or an identity
  --no-wait         a rollout in waves (maxUnavailable): replace the wave that may go now
                    and leave the rest to a watching reconciler; by default a one-shot
                    reconcile of a pool waits for each wave to be Ready and goes on to the
                    end, printing its progress
  -v, --verbose, --plan
                    print the plan first (each step with the members it touches and why,
                    and each member left alone and why), then each step as it happens
                    (Lease taken, deleted, waited, created, Lease released) with its time
                    since the plan, and the result
  --dry-run         print the plan and change nothing: the create of a step's Lease is
                    tried as a server-side dry run once per kind of step (rights,
                    admission), and nothing else is written (no member, status or Event);
                    exit 1 if that found a problem; goes with --read-only
  -o, --output F    text (default) or json: with -v, --plan or --dry-run, the same events
                    as JSON lines, one object per line (see README, "reconcile trace")
${LEADER_HELP}

Without a kubeconfig, inside a pod (KUBERNETES_SERVICE_HOST set), ctpool uses the pod's
service account, as kubectl does.

${GLOBAL_HELP}
`,
};

/** The status command. */
export const statusCommand: CommandSpec = {
	name: 'status',
	summary: 'show the live state of each member (changes nothing)',
	mutates: false,
	flags: {
		output: { type: 'string', shortFlag: 'o' },
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
	},
	help: `
Usage: ctpool status <pool> [-o table|json|yaml]
       ctpool status [-A] [-o table|json|yaml]

Show the live state of each member of the pool, computed from the cluster now. Without a
pool, one line per pool of the namespace (-A: of every namespace the identity can list).
This command changes nothing.

Flags
  -o, --output F    table (default), json or yaml (the status object of the pool; without
                    a pool: {"items": [{"namespace", "pool", "status", "error"}]})
  -A, --all-namespaces
                    every pool in every namespace the identity can list (no pool named)

${GLOBAL_HELP}
`,
};

/** The find command. */
export const findCommand: CommandSpec = {
	name: 'find',
	summary: "find a holder's desktop, a member or a pool across pools (changes nothing)",
	mutates: false,
	flags: {
		output: { type: 'string', shortFlag: 'o' },
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
	},
	help: `
Usage: ctpool find <identity-or-member> [-A] [-o table|json]

List the members whose holder, name or pool name contains the text (case-insensitive),
in every pool of the namespace (-A: of every namespace the identity can list): where each
is, its state, its holder and how long ago it was claimed. A pool whose name matches lists
all its members. Exits 1 when nothing matches (as grep), 0 otherwise. Changes nothing.

Flags
  -o, --output F    table (default) or json:
                    {"query": "bob", "items": [{"namespace", "pool", "member", "state",
                    "holder", "claimedAt" (RFC 3339 or null), "matched": ["pool" |
                    "member" | "holder", ...]}]}
  -A, --all-namespaces
                    search every namespace the identity can list

${GLOBAL_HELP}

Examples
  ctpool find bob@example.com
  ctpool find desk-3 -A -o json
`,
};

/** The claim command. */
export const claimCommand: CommandSpec = {
	name: 'claim',
	summary: 'give a free desktop to a user; prints the member',
	mutates: true,
	flags: {},
	help: `
Usage: ctpool claim <pool> <identity>

Give a free member of the pool to the identity and print its name. A second claim by the
same identity gets the same member (and renews an expired claim). Ready members go first,
then Starting, then Stopped ones (which are started).

${GLOBAL_HELP}

Example
  ctpool claim desk alice@example.com
`,
};

/** The release command. */
export const releaseCommand: CommandSpec = {
	name: 'release',
	summary: 'destroy a claimed desktop and make it again from the image',
	// release --expired --dry-run only lists
	mutates: (flags) => !(flags.expired === true && flags.dryRun === true),
	flags: {
		force: { type: 'boolean' },
		expired: { type: 'boolean' },
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
		dryRun: { type: 'boolean' },
	},
	help: `
Usage: ctpool release <pool> <member> <identity> [--force]
       ctpool release --expired [pool] [-A] [--dry-run]

Release the identity's claim on the member: its pod, console Service and data PVC are
deleted (all data is lost), then the member is made again from the pool's image. A
member with no claim is left alone; a member the pool does not have is an error. A member
a reconciler or release is working on is refused, saying what holds it; with --force the
release waits for that Lease to expire (at most 20 s when its holder was stopped) and takes
it over.

With --expired, every claim that has expired is released (with --force, as the acting
identity) in the pool, else in every pool of the namespace, or with -A of every namespace;
each member and its holder is listed. A claim renewed since it was listed is left alone.

Flags
  --force               release a claim that another identity holds (administrators)
  --expired             release every expired claim (of the pool, the namespace, or -A)
  -A, --all-namespaces  with --expired and no pool: every namespace the identity can list
  --dry-run             with --expired: list the expired claims, change nothing

${GLOBAL_HELP}

Examples
  ctpool release desk desk-1 alice@example.com
  ctpool release --expired -A --dry-run
`,
};

/** The delete command. */
export const deleteCommand: CommandSpec = {
	name: 'delete',
	summary: 'remove a pool and all of its members',
	mutates: true,
	flags: {},
	help: `
Usage: ctpool delete <pool>

Remove the pool: its size is set to 0, every unclaimed member is deleted, then the
definition. A claimed member or one in maintenance keeps the definition in place; the
error names each such member: release it (or turn maintenance off) and run delete again.

${GLOBAL_HELP}
`,
};

/** The maintenance command. */
export const maintenanceCommand: CommandSpec = {
	name: 'maintenance',
	summary: 'take a member out of use, or put it back',
	mutates: true,
	flags: {},
	help: `
Usage: ctpool maintenance <pool> <member> on|off [reason]

A member in maintenance is never given to a user, and reconcile never replaces or
deletes it. The reason is shown in the status.

${GLOBAL_HELP}

Example
  ctpool maintenance desk desk-2 on "disk check"
`,
};

/** The audit command. */
export const auditCommand: CommandSpec = {
	name: 'audit',
	summary: 'show who claimed, released, forced and reconciled what (changes nothing)',
	mutates: false,
	flags: {
		output: { type: 'string', shortFlag: 'o' },
		since: { type: 'string' },
		action: { type: 'string' },
		member: { type: 'string' },
		by: { type: 'string' },
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
	},
	help: `
Usage: ctpool audit [pool] [-A] [--by ID] [--since 2h] [--action A] [-o table|json|yaml]

Show what every ctpool (consoles, the CLI, reconcilers, brokers) did to the pools, newest
first, from the Kubernetes Events it recorded: claims, renewals, releases (forced ones
marked --force), maintenance on and off, refused claims, reconcile steps and failures.
The cluster keeps Events for a while only (an hour by default), so this is the recent
past. Needs list on events (optional in ctpool's Role). This command changes nothing.

Events are written by their reporters: anyone who may create events can forge a line, so
this is what ctpools say they did, with the user the cluster authenticated each writer as
(when it could ask). A time an Event states beyond its creation is not believed: the line
is shown at its creation, marked "!". The cluster's own record of who did what is the API
server's audit log (kube-apiserver --audit-log-path and --audit-policy-file; on a managed
cluster, its provider's audit logs).

Flags
  -A, --all-namespaces  every namespace the identity can list Events in
  --by ID               only lines where ID acted, held the claim, or was named
  --since D             only the last D (such as 30m or 2h)
  --action A            only one action: ${[...AUDIT_ACTIONS, FORCE_RELEASE_FILTER].join(', ')}
  --member M            only one member
  -o, --output F        table (default), json or yaml (an AuditList, see the README)

${GLOBAL_HELP}

Examples
  ctpool audit desk --action force-release
  ctpool audit -A --by alice@example.com --since 2h -o json
`,
};

/** The rbac command. */
export const rbacCommand: CommandSpec = {
	name: 'rbac',
	summary: 'print the Role and RoleBinding ctpool needs (YAML for kubectl apply -f -)',
	mutates: false,
	flags: {
		serviceAccount: { type: 'string' },
		user: { type: 'string' },
		group: { type: 'string' },
		watch: { type: 'boolean' },
		events: { type: 'boolean' },
		services: { type: 'boolean' },
		logs: { type: 'boolean' },
		tier: { type: 'string' },
		allNamespaces: { type: 'boolean', shortFlag: 'A' },
		nodes: { type: 'boolean' },
	},
	help: `
Usage: ctpool rbac [--tier viewer|operator|reconciler]
                   [--service-account NAME | --user NAME | --group NAME] [-n NS]

Print a Role and a RoleBinding, as YAML ready for kubectl apply -f -, with exactly the
permissions of a tier in the pool namespace:
  viewer      reads only: status, find, audit, the console without changing keys;
              no writes, no exec
  operator    the seed's list (the default): every command and console key
  reconciler  what reconcile and the in-cluster Deployment need: members, their
              Leases, the status; no exec, no definitions made or deleted
A command or console key a tier lacks a right for is refused before it changes anything,
naming the right and the tier that has it. Every command works with the seed's list:
  ConfigMaps get, list, create, patch, delete (a definition is written with a merge
  patch carrying its resourceVersion, never a PUT); Pods and PersistentVolumeClaims get,
  list, create, patch, delete; Services delete; pods/exec create (the console);
  coordination.k8s.io Leases get, list, create, update, delete.
The live console and reconcile --watch also need watch on ConfigMaps, Pods, PVCs and
Leases. Events create is optional: without it ctpool says once that it records no
Events, and goes on. get on Services is beyond the seed's list, and granted here: a release
deletes a member's console Service (Corral's <member>-svc) only after reading it and seeing
it is the member's (never on its name alone). Without it the Service is left in place and may
still route to the member made again for the next user: the release says so on stderr and
the pool's status errors name it until ctpool can read it (--no-services leaves it out).
Nothing is sent to the cluster.

Flags
  --tier T                viewer, operator (the default) or reconciler
  --service-account NAME  bind a ServiceAccount of the namespace (the default: ctpool,
                          and ctpool-reconciler for the reconciler tier, as in deploy/)
  --user NAME             bind a user instead
  --group NAME            bind a group instead
  --read-only             the viewer tier (its older name)
  --no-watch              leave out watch (commands only: no console, no --watch)
  --no-events             leave out the optional Events rules
  --no-services           leave out the optional get on Services
  --no-logs               leave out the optional get on pods/log (the console's L)
  -A, --all-namespaces    a ClusterRole and ClusterRoleBinding instead: the same rights in
                          every namespace (ctpool -A, status -A, find -A, reconcile --all -A)
  --nodes                 add a ClusterRole (and its binding) with list on nodes and
                          on pods in all namespaces: optional; with it the console says
                          what an Unschedulable member needs against the nodes' free room

${GLOBAL_HELP}

Examples
  ctpool rbac --service-account desk-admin | kubectl apply -f -
  ctpool rbac --tier viewer --user alice@example.com -n labs | kubectl apply -f -
  ctpool rbac --tier reconciler -n corral-vms      # deploy/role.yaml, exactly
`,
};
