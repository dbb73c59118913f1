/**
 * The permissions ctpool needs in a pool's namespace, as data, in three tiers: viewer (reads
 * only), operator (the seed's list: every command works with exactly it) and reconciler
 * (what the in-cluster Deployment needs; no exec), each with `watch` for the live console and
 * `reconcile --watch` and the optional rules (Events, Services, pods/log). `ctpool rbac
 * --tier` prints them as a Role; tests run every command under them.
 */

/** One rule of a Role, as rbac.authorization.k8s.io/v1 writes it. */
export interface PolicyRule {
	apiGroups: string[];
	resources: string[];
	verbs: string[];
}

/** Which part of ctpool a set of rules serves. */
export type RulePurpose = 'commands' | 'watch' | 'events' | 'services' | 'logs' | 'nodes';

/** Rules with the reason they are there. */
export interface PurposeRules {
	purpose: RulePurpose;
	/** One line for a YAML comment: what needs these rules. */
	why: string;
	rules: PolicyRule[];
}

const CORE = '';
const COORDINATION = 'coordination.k8s.io';

/** The seed's permissions: every command (apply, reconcile, status, claim, release, delete, maintenance, the console's keys) works with exactly these. */
export const COMMAND_RULES: readonly PolicyRule[] = [
	{
		apiGroups: [CORE],
		resources: ['configmaps'],
		verbs: ['get', 'list', 'create', 'patch', 'delete'],
	},
	{
		apiGroups: [CORE],
		resources: ['pods', 'persistentvolumeclaims'],
		verbs: ['get', 'list', 'create', 'patch', 'delete'],
	},
	{ apiGroups: [CORE], resources: ['services'], verbs: ['delete'] },
	{ apiGroups: [CORE], resources: ['pods/exec'], verbs: ['create'] },
	{
		apiGroups: [COORDINATION],
		resources: ['leases'],
		verbs: ['get', 'list', 'create', 'update', 'delete'],
	},
];

/** watch on the kinds the live console and `reconcile --watch` follow. */
export const WATCH_RULES: readonly PolicyRule[] = [
	{
		apiGroups: [CORE],
		resources: ['configmaps', 'pods', 'persistentvolumeclaims'],
		verbs: ['watch'],
	},
	{ apiGroups: [COORDINATION], resources: ['leases'], verbs: ['watch'] },
];

/**
 * Events: optional. create records who did what (without it ctpool says once that it records
 * no Events and goes on); list and watch read them back (`ctpool audit`, the console's audit
 * screen and its refused-claims counts, which show that Events cannot be read without them;
 * the in-cluster reconciler's ctpool_claims_refused_total, absent without them).
 */
export const EVENT_RULES: readonly PolicyRule[] = [
	{ apiGroups: [CORE], resources: ['events'], verbs: ['create', 'list', 'watch'] },
];

/**
 * get on Services: optional. A release deletes the member's console Service only once it has
 * read it and seen that it is the member's (its selector is `corral.dev/ct-name: <member>`,
 * as Corral makes it): nothing is deleted on its name alone. Without it the Service is left
 * in place (ctpool says so) and everything else still works.
 */
export const SERVICE_READ_RULES: readonly PolicyRule[] = [
	{ apiGroups: [CORE], resources: ['services'], verbs: ['get'] },
];

/**
 * list on Nodes and on Pods in all namespaces: optional and cluster-wide (a ClusterRole, not
 * part of the namespace's Role). With them the console's details of an Unschedulable member
 * say what it requests against the roomiest node's free room; without them the hint says
 * what it cannot show and why, and the scheduler's message still says why the pod waits.
 */
export const NODE_ROOM_RULES: readonly PolicyRule[] = [
	{ apiGroups: [CORE], resources: ['nodes', 'pods'], verbs: ['list'] },
];

/** The viewer's reads: get and list on what ctpool reads; nothing that changes the cluster. */
export const VIEWER_READ_RULES: readonly PolicyRule[] = [
	{
		apiGroups: [CORE],
		resources: ['configmaps', 'pods', 'persistentvolumeclaims'],
		verbs: ['get', 'list'],
	},
	{ apiGroups: [COORDINATION], resources: ['leases'], verbs: ['get', 'list'] },
];

/** Events read back only (ctpool audit, the console's audit screen and refused-claims counts). */
export const EVENT_READ_RULES: readonly PolicyRule[] = [
	{ apiGroups: [CORE], resources: ['events'], verbs: ['list', 'watch'] },
];

/** get on pods/log: the console's container log of a member (L). Optional. */
export const LOG_RULES: readonly PolicyRule[] = [
	{ apiGroups: [CORE], resources: ['pods/log'], verbs: ['get'] },
];

/**
 * What `reconcile` (and the in-cluster Deployment, `reconcile --all --watch`) needs and no
 * more: it reads definitions and writes their status (patch), never creates or deletes a
 * definition; makes, starts, replaces and deletes members (pods and PVCs, the console
 * Service of a replaced member) under their Leases. No pods/exec, no pods/log.
 */
export const RECONCILER_RULES: readonly PolicyRule[] = [
	{ apiGroups: [CORE], resources: ['configmaps'], verbs: ['get', 'list', 'patch'] },
	{
		apiGroups: [CORE],
		resources: ['pods', 'persistentvolumeclaims'],
		verbs: ['get', 'list', 'create', 'patch', 'delete'],
	},
	{ apiGroups: [CORE], resources: ['services'], verbs: ['delete'] },
	{
		apiGroups: [COORDINATION],
		resources: ['leases'],
		verbs: ['get', 'list', 'create', 'update', 'delete'],
	},
];

/** The tiers of `ctpool rbac --tier`, smallest first. */
export const TIERS = ['viewer', 'operator', 'reconciler'] as const;

/** A tier of rights: viewer reads, operator is the seed's list, reconciler is the Deployment's. */
export type Tier = (typeof TIERS)[number];

/** The tier `ctpool rbac` prints without --tier: the seed's list. */
export const DEFAULT_TIER: Tier = 'operator';

/** What each tier is for, one line (help and the YAML's comment). */
export const TIER_SUMMARY: Record<Tier, string> = {
	viewer:
		'reads only: status, find, audit and the console without changing keys; no writes, no exec',
	operator:
		"the seed's list: every command and every console key (claim, release, maintenance, the shell)",
	reconciler:
		'what reconcile and the in-cluster Deployment need: members and their Leases, the status; no exec, no definitions made or deleted',
};

/** The name of a tier's Role (`ctpool` for the operator, as before tiers). */
export function tierRoleName(tier: Tier): string {
	return tier === 'operator' ? 'ctpool' : `ctpool-${tier}`;
}

/** One part of a tier: rules for a purpose. */
interface TierPart {
	purpose: RulePurpose;
	why: string;
	rules: readonly PolicyRule[];
}

const WATCH_PART: TierPart = {
	purpose: 'watch',
	why: 'watch: the live console and reconcile --watch follow these kinds',
	rules: WATCH_RULES,
};
const EVENTS_PART: TierPart = {
	purpose: 'events',
	why: 'optional: Kubernetes Events of who did what (create), read back by ctpool audit and the console (list, watch); without them ctpool says so and goes on',
	rules: EVENT_RULES,
};
const SERVICES_PART: TierPart = {
	purpose: 'services',
	why: "optional: read a console Service before deleting it, to see it is the member's; without it the Service is left alone",
	rules: SERVICE_READ_RULES,
};
const LOGS_PART: TierPart = {
	purpose: 'logs',
	why: "optional: the console's container log of a member (L)",
	rules: LOG_RULES,
};

/**
 * Each tier's rules, as data: a part added here (say the reconciler's leader-election
 * Lease) reaches `ctpool rbac`, deploy/role.yaml's test and the refusal messages at once.
 */
export const TIER_PARTS: Record<Tier, readonly TierPart[]> = {
	viewer: [
		{
			purpose: 'commands',
			why: 'viewer: status, find, audit and a console without changing keys; get, list and watch, nothing that changes the cluster',
			rules: VIEWER_READ_RULES,
		},
		WATCH_PART,
		{
			purpose: 'events',
			why: 'optional: read back Kubernetes Events of who did what (ctpool audit, the console)',
			rules: EVENT_READ_RULES,
		},
		LOGS_PART,
	],
	operator: [
		{
			purpose: 'commands',
			why: "the seed's permissions: every command works with exactly these",
			rules: COMMAND_RULES,
		},
		WATCH_PART,
		EVENTS_PART,
		SERVICES_PART,
		LOGS_PART,
	],
	reconciler: [
		{
			purpose: 'commands',
			why: 'reconciler: members and their Leases, the status of definitions; no exec, no definitions made or deleted',
			rules: RECONCILER_RULES,
		},
		WATCH_PART,
		{
			...EVENTS_PART,
			why: 'optional: Kubernetes Events of what it did (create), and refused claims read back for ctpool_claims_refused_total (list, watch)',
		},
		SERVICES_PART,
	],
};

/** Options of roleRules. */
export interface RoleOptions {
	/** The tier (default operator). */
	tier?: Tier;
	/** The viewer tier (the older name of `--tier viewer`). */
	readOnly?: boolean;
	/** Include watch (default true): the live console and `reconcile --watch` need it. */
	watch?: boolean;
	/** Include the optional Events rules (default true). */
	events?: boolean;
	/** Include the optional get on Services (default true). */
	services?: boolean;
	/** Include the optional get on pods/log (default true). */
	logs?: boolean;
}

/** The rules of a tier's Role, grouped by what needs them. */
export function roleRules(opts: RoleOptions = {}): PurposeRules[] {
	const tier = opts.readOnly ? 'viewer' : (opts.tier ?? DEFAULT_TIER);
	const left = new Set<RulePurpose>();
	if (opts.watch === false) left.add('watch');
	if (opts.events === false) left.add('events');
	if (opts.services === false) left.add('services');
	if (opts.logs === false) left.add('logs');
	return TIER_PARTS[tier]
		.filter((p) => !left.has(p.purpose))
		.map((p) => ({
			purpose: p.purpose,
			why: p.why,
			rules: p.rules.map((r) => ({
				apiGroups: [...r.apiGroups],
				resources: [...r.resources],
				verbs: [...r.verbs],
			})),
		}));
}

/** Every rule of a tier, the optional ones included. */
export function tierRules(tier: Tier): PolicyRule[] {
	return roleRules({ tier }).flatMap((p) => p.rules);
}

/**
 * The smallest tier for a person that allows a verb on a resource (`pods/exec` for a
 * subresource, `leases.coordination.k8s.io` with its group, or `leases` alone): viewer, then
 * operator, then reconciler; null when none does.
 */
export function tierWith(resource: string, verb: string): Tier | null {
	const dot = resource.indexOf('.');
	const name = dot < 0 ? resource : resource.slice(0, dot);
	const group = dot < 0 ? (name === 'leases' ? COORDINATION : CORE) : resource.slice(dot + 1);
	return TIERS.find((t) => allows(tierRules(t), group, name, verb)) ?? null;
}

/** Whether rules allow a verb on a resource (`pods/exec` for a subresource) of an API group. */
export function allows(
	rules: readonly PolicyRule[],
	group: string,
	resource: string,
	verb: string,
): boolean {
	return rules.some(
		(r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb),
	);
}
