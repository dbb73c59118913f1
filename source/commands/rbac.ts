/** ctpool rbac: print the Role and RoleBinding ctpool needs, as YAML for `kubectl apply -f -`. */

import { isDnsSubdomain } from '../pool/names.js';
import {
	DEFAULT_TIER,
	NODE_ROOM_RULES,
	type PolicyRule,
	roleRules,
	TIER_SUMMARY,
	TIERS,
	type Tier,
	tierRoleName,
} from '../pool/permissions.js';
import { sanitize } from '../text/sanitize.js';
import { type CommandSpec, runCommand, stringFlag } from './command.js';
import { EXIT_OK, usageError } from './failure.js';
import { GLOBAL_HELP } from './flags.js';
import type { CommandIo } from './io.js';
import { kubeOptions } from './session.js';
import { checkArgs } from './values.js';

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
Events, and goes on. get on Services is optional too: a release deletes a member's
console Service only after reading it and seeing it is the member's (never on its name
alone); without it the Service is left in place and ctpool says so. Nothing is sent to
the cluster.

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

/** Who the RoleBinding binds. */
interface Subject {
	kind: 'ServiceAccount' | 'User' | 'Group';
	name: string;
}

/** A YAML scalar: plain when it is safe so, else a JSON string (which YAML reads the same). */
function scalar(s: string): string {
	return /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s)
		? s
		: JSON.stringify(s);
}

function flow(items: readonly string[]): string {
	return `[${items.map(scalar).join(', ')}]`;
}

function ruleYaml(r: PolicyRule): string[] {
	return [
		`  - apiGroups: ${flow(r.apiGroups)}`,
		`    resources: ${flow(r.resources)}`,
		`    verbs: ${flow(r.verbs)}`,
	];
}

/** A DNS subdomain made from a subject for the RoleBinding's name (`ctpool-user-alice-example.com`). */
function bindingName(role: string, subject: Subject): string {
	const tail = subject.name
		.toLowerCase()
		.replace(/[^a-z0-9.-]+/g, '-')
		.replace(/^[-.]+|[-.]+$/g, '');
	const name = `${role}-${subject.kind.toLowerCase()}-${tail}`.slice(0, 253).replace(/[-.]+$/, '');
	return isDnsSubdomain(name) ? name : `${role}-${subject.kind.toLowerCase()}`;
}

/** The YAML of the Role and RoleBinding. */
export function rbacYaml(opts: {
	namespace: string;
	subject: Subject;
	tier: Tier;
	watch: boolean;
	events: boolean;
	services?: boolean;
	logs?: boolean;
	/** A ClusterRole and ClusterRoleBinding: the rights in every namespace. */
	clusterWide?: boolean;
	/** Add the optional cluster-wide node room reads (a ClusterRole and ClusterRoleBinding). */
	nodes?: boolean;
}): string {
	const cluster = opts.clusterWide === true;
	const role = `${tierRoleName(opts.tier)}${cluster ? '-all-namespaces' : ''}`;
	const inNamespace = cluster ? [] : [`  namespace: ${opts.namespace}`];
	const lines = [
		cluster
			? `# ctpool's ${opts.tier} tier in every namespace: apply with kubectl apply -f -`
			: `# ctpool's ${opts.tier} tier in namespace ${opts.namespace}: apply with kubectl apply -f -`,
		`# ${TIER_SUMMARY[opts.tier]}`,
		'apiVersion: rbac.authorization.k8s.io/v1',
		`kind: ${cluster ? 'ClusterRole' : 'Role'}`,
		'metadata:',
		`  name: ${role}`,
		...inNamespace,
		'rules:',
	];
	for (const group of roleRules({
		tier: opts.tier,
		watch: opts.watch,
		events: opts.events,
		services: opts.services !== false,
		logs: opts.logs !== false,
	})) {
		lines.push(`  # ${group.why}`);
		for (const r of group.rules) lines.push(...ruleYaml(r));
	}
	const subject = [`  - kind: ${opts.subject.kind}`, `    name: ${scalar(opts.subject.name)}`];
	if (opts.subject.kind === 'ServiceAccount') subject.push(`    namespace: ${opts.namespace}`);
	else subject.push('    apiGroup: rbac.authorization.k8s.io');
	lines.push(
		'---',
		'apiVersion: rbac.authorization.k8s.io/v1',
		`kind: ${cluster ? 'ClusterRoleBinding' : 'RoleBinding'}`,
		'metadata:',
		`  name: ${bindingName(role, opts.subject)}`,
		...inNamespace,
		'roleRef:',
		'  apiGroup: rbac.authorization.k8s.io',
		`  kind: ${cluster ? 'ClusterRole' : 'Role'}`,
		`  name: ${role}`,
		'subjects:',
		...subject,
	);
	if (opts.nodes) {
		const nodeRole = 'ctpool-node-room';
		lines.push(
			'---',
			"# optional, cluster-wide: the nodes' free room for the console's hints on Unschedulable members",
			'apiVersion: rbac.authorization.k8s.io/v1',
			'kind: ClusterRole',
			'metadata:',
			`  name: ${nodeRole}`,
			'rules:',
			...NODE_ROOM_RULES.flatMap(ruleYaml),
			'---',
			'apiVersion: rbac.authorization.k8s.io/v1',
			'kind: ClusterRoleBinding',
			'metadata:',
			`  name: ${bindingName(`${nodeRole}-${opts.namespace}`, opts.subject)}`,
			'roleRef:',
			'  apiGroup: rbac.authorization.k8s.io',
			'  kind: ClusterRole',
			`  name: ${nodeRole}`,
			'subjects:',
			...subject,
		);
	}
	return `${lines.join('\n')}\n`;
}

/** The tier asked for: --tier, or --read-only (the viewer), else the operator. */
function tierOf(text: string | undefined, readOnly: boolean): Tier {
	if (text === undefined) return readOnly ? 'viewer' : DEFAULT_TIER;
	const tier = TIERS.find((t) => t === text);
	if (!tier)
		throw usageError(
			'rbac',
			`--tier ${JSON.stringify(sanitize(text).slice(0, 40))} is not a tier; use one of ${TIERS.join(', ')}`,
		);
	if (readOnly && tier !== 'viewer')
		throw usageError(
			'rbac',
			`--read-only is the viewer tier; drop it, or use --tier viewer instead of --tier ${tier}`,
		);
	return tier;
}

/** Runs `ctpool rbac`. */
export function runRbac(argv: readonly string[], io: CommandIo): Promise<number> {
	return runCommand(rbacCommand, argv, io, async (args) => {
		checkArgs('rbac', args.input, []);
		const given: Subject[] = [];
		for (const [flag, kind] of [
			['serviceAccount', 'ServiceAccount'],
			['user', 'User'],
			['group', 'Group'],
		] as const) {
			const v = stringFlag(args, flag);
			if (v !== undefined) given.push({ kind, name: v });
		}
		if (given.length > 1)
			throw usageError('rbac', 'give one of --service-account, --user and --group');
		const tier = tierOf(stringFlag(args, 'tier'), args.flags.readOnly === true);
		const subject = given[0] ?? {
			kind: 'ServiceAccount',
			name: tier === 'reconciler' ? 'ctpool-reconciler' : 'ctpool',
		};
		if (subject.kind === 'ServiceAccount' && !isDnsSubdomain(subject.name))
			throw usageError(
				'rbac',
				`--service-account ${JSON.stringify(sanitize(subject.name).slice(0, 70))} is not a ServiceAccount name; use a DNS name such as desk-admin`,
			);
		if (subject.name.length > 1000 || /[\u0000-\u001f\u007f]/.test(subject.name))
			throw usageError('rbac', 'the subject name has control characters or is too long');
		const namespace = kubeOptions(args.flags, io.env).namespace!;
		io.stdout.write(
			rbacYaml({
				namespace,
				subject,
				tier,
				watch: args.flags.watch !== false,
				events: args.flags.events !== false,
				services: args.flags.services !== false,
				logs: args.flags.logs !== false,
				clusterWide: args.flags.allNamespaces === true,
				nodes: args.flags.nodes === true,
			}),
		);
		return EXIT_OK;
	});
}
