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
import { runCommand, stringFlag } from './command.js';
import { rbacCommand } from './command-specs.js';
import { EXIT_OK, usageError } from './failure.js';
import type { CommandIo } from './io.js';
import { kubeOptions } from './session.js';
import { checkArgs } from './values.js';

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
