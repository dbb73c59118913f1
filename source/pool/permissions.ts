/**
 * The permissions ctpool needs in a pool's namespace, as data: the seed's list (every
 * command works with exactly it), `watch` for the live console and `reconcile --watch`, and
 * the optional Events create. `ctpool rbac` prints them as a Role; tests run every command
 * under them.
 */

/** One rule of a Role, as rbac.authorization.k8s.io/v1 writes it. */
export interface PolicyRule {
	apiGroups: string[];
	resources: string[];
	verbs: string[];
}

/** Which part of ctpool a set of rules serves. */
export type RulePurpose = 'commands' | 'watch' | 'events' | 'services' | 'nodes';

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

/** Read-only: get, list and watch on what ctpool reads, nothing that changes the cluster. */
export const READ_ONLY_RULES: readonly PolicyRule[] = [
	{
		apiGroups: [CORE],
		resources: ['configmaps', 'pods', 'persistentvolumeclaims'],
		verbs: ['get', 'list', 'watch'],
	},
	{ apiGroups: [COORDINATION], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
	{ apiGroups: [CORE], resources: ['events'], verbs: ['list', 'watch'] },
];

/** Options of roleRules. */
export interface RoleOptions {
	/** Only get, list and watch (for `--read-only` consoles and status). */
	readOnly?: boolean;
	/** Include watch (default true): the live console and `reconcile --watch` need it. */
	watch?: boolean;
	/** Include the optional Events create (default true). */
	events?: boolean;
	/** Include the optional get on Services (default true). */
	services?: boolean;
}

/** The rules of ctpool's Role, grouped by what needs them. */
export function roleRules(opts: RoleOptions = {}): PurposeRules[] {
	const copy = (rules: readonly PolicyRule[]) =>
		rules.map((r) => ({
			apiGroups: [...r.apiGroups],
			resources: [...r.resources],
			verbs: [...r.verbs],
		}));
	if (opts.readOnly)
		return [
			{
				purpose: 'commands',
				why: 'read-only: status and a --read-only console; get, list and watch, nothing that changes the cluster',
				rules: copy(READ_ONLY_RULES),
			},
		];
	const out: PurposeRules[] = [
		{
			purpose: 'commands',
			why: "the seed's permissions: every command works with exactly these",
			rules: copy(COMMAND_RULES),
		},
	];
	if (opts.watch !== false)
		out.push({
			purpose: 'watch',
			why: 'watch: the live console and reconcile --watch follow these kinds',
			rules: copy(WATCH_RULES),
		});
	if (opts.events !== false)
		out.push({
			purpose: 'events',
			why: 'optional: Kubernetes Events of who did what (create), read back by ctpool audit and the console (list, watch); without them ctpool says so and goes on',
			rules: copy(EVENT_RULES),
		});
	if (opts.services !== false)
		out.push({
			purpose: 'services',
			why: "beyond the seed's list: read a console Service before deleting it, to see it is the member's; without it the Service is left in place, may still route to the member's next user, and the release and the status errors say so",
			rules: copy(SERVICE_READ_RULES),
		});
	return out;
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
