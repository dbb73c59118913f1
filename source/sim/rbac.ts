/**
 * RBAC authorisation as kube-apiserver's RBAC authorizer does it: the rules of the
 * ClusterRoles bound cluster-wide and of the Roles and ClusterRoles bound in the request's
 * namespace, matched against the request's attributes; plus the rules a subject holds in a
 * namespace (SelfSubjectRulesReview) and the 403 texts of a denial.
 */

import { SimError } from './errors.js';
import { RESOURCES } from './resources.js';
import type { SimObject } from './store-api.js';

/** Who made a request, as the authenticator (or impersonation) says. */
export interface UserInfo {
	/** `kubernetes-admin`, `system:serviceaccount:NS:NAME`. */
	username: string;
	uid?: string;
	groups: string[];
	extra?: Record<string, string[]>;
}

/** What a request asks to do, as the request-info resolver names it. */
export interface Attributes {
	verb: string;
	/** True for API resources, false for non-resource paths (`/version`, `/apis`). */
	resourceRequest: boolean;
	/** The API group ('' for core). */
	apiGroup?: string;
	resource?: string;
	subresource?: string;
	namespace?: string;
	name?: string;
	/** The URL path of a non-resource request. */
	path?: string;
}

/** One rule of a Role or ClusterRole. */
export interface PolicyRule {
	verbs: string[];
	apiGroups?: string[];
	resources?: string[];
	resourceNames?: string[];
	nonResourceURLs?: string[];
}

/** The RBAC objects the authorizer reads (the store's lists). */
export interface RbacSource {
	list(resource: string, opts?: { namespace?: string }): SimObject[];
	get(resource: string, namespace: string | undefined, name: string): SimObject | undefined;
}

/** The outcome of an authorisation. */
export interface Decision {
	allowed: boolean;
	/** Why (the binding that allowed it), as SSAR's status.reason reads. */
	reason: string;
}

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

function strings(v: unknown): string[] {
	return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function rulesOf(role: SimObject | undefined): PolicyRule[] {
	if (!role) return [];
	return (Array.isArray(role.rules) ? role.rules : []).map((r) => {
		const x = rec(r);
		return {
			verbs: strings(x.verbs),
			apiGroups: strings(x.apiGroups),
			resources: strings(x.resources),
			resourceNames: strings(x.resourceNames),
			nonResourceURLs: strings(x.nonResourceURLs),
		};
	});
}

/** Whether a binding's subject names the user (ServiceAccount subjects default to the binding's namespace). */
export function subjectMatches(
	subject: unknown,
	user: UserInfo,
	bindingNamespace?: string,
): boolean {
	const s = rec(subject);
	const name = String(s.name ?? '');
	switch (s.kind) {
		case 'User':
			return user.username === name;
		case 'Group':
			return user.groups.includes(name);
		case 'ServiceAccount': {
			const ns = String(s.namespace || bindingNamespace || '');
			return ns !== '' && user.username === `system:serviceaccount:${ns}:${name}`;
		}
		default:
			return false;
	}
}

function has(list: string[] | undefined, value: string): boolean {
	return (list ?? []).some((v) => v === '*' || v === value);
}

/** Whether a rule allows the request (verbs, groups, resources and subresources, names, URLs). */
export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
	if (!has(rule.verbs, a.verb)) return false;
	if (!a.resourceRequest) {
		const path = a.path ?? '';
		return (rule.nonResourceURLs ?? []).some(
			(u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))),
		);
	}
	if (!has(rule.apiGroups, a.apiGroup ?? '')) return false;
	const resource = a.resource ?? '';
	const sub = a.subresource ?? '';
	const combined = sub ? `${resource}/${sub}` : resource;
	const resourceOk = (rule.resources ?? []).some(
		(r) => r === '*' || r === combined || (sub !== '' && r === `*/${sub}`),
	);
	if (!resourceOk) return false;
	const names = rule.resourceNames ?? [];
	return names.length === 0 || (a.name !== undefined && a.name !== '' && names.includes(a.name));
}

interface BoundRules {
	/** `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`. */
	describe(subject: unknown): string;
	binding: SimObject;
	rules: PolicyRule[];
}

function bindingRules(src: RbacSource, binding: SimObject): PolicyRule[] {
	const ref = rec(binding.roleRef);
	const name = String(ref.name ?? '');
	if (ref.kind === 'ClusterRole') return rulesOf(src.get('clusterroles', undefined, name));
	if (ref.kind === 'Role') return rulesOf(src.get('roles', binding.metadata.namespace, name));
	return [];
}

function* applicable(src: RbacSource, user: UserInfo, namespace?: string): Generator<BoundRules> {
	for (const b of src.list('clusterrolebindings')) {
		if (!(Array.isArray(b.subjects) ? b.subjects : []).some((s) => subjectMatches(s, user)))
			continue;
		yield {
			binding: b,
			rules: bindingRules(src, b),
			describe: (s) =>
				`ClusterRoleBinding ${JSON.stringify(b.metadata.name)} of ClusterRole ${JSON.stringify(String(rec(b.roleRef).name))} to ${subjectText(s)}`,
		};
	}
	if (!namespace) return;
	for (const b of src.list('rolebindings', { namespace })) {
		const subjects = Array.isArray(b.subjects) ? b.subjects : [];
		if (!subjects.some((s) => subjectMatches(s, user, namespace))) continue;
		yield {
			binding: b,
			rules: bindingRules(src, b),
			describe: (s) =>
				`RoleBinding ${JSON.stringify(`${b.metadata.name}/${namespace}`)} of ${String(rec(b.roleRef).kind)} ${JSON.stringify(String(rec(b.roleRef).name))} to ${subjectText(s)}`,
		};
	}
}

function subjectText(subject: unknown): string {
	const s = rec(subject);
	if (s.kind === 'ServiceAccount') {
		return `ServiceAccount ${JSON.stringify(`${String(s.name)}/${String(s.namespace ?? '')}`)}`;
	}
	return `${String(s.kind)} ${JSON.stringify(String(s.name))}`;
}

/** Decides a request by RBAC: allowed with the binding that allowed it, or denied with no reason. */
export function authorize(src: RbacSource, user: UserInfo, a: Attributes): Decision {
	for (const bound of applicable(src, user, a.resourceRequest ? a.namespace : undefined)) {
		if (bound.rules.some((r) => ruleAllows(r, a))) {
			const subjects = Array.isArray(bound.binding.subjects) ? bound.binding.subjects : [];
			const subject = subjects.find((s) =>
				subjectMatches(s, user, bound.binding.metadata.namespace),
			);
			return { allowed: true, reason: `RBAC: allowed by ${bound.describe(subject)}` };
		}
	}
	return { allowed: false, reason: '' };
}

/** The rules a user holds in a namespace (cluster-wide ones included), as SelfSubjectRulesReview lists them. */
export function rulesFor(
	src: RbacSource,
	user: UserInfo,
	namespace: string,
): { resourceRules: PolicyRule[]; nonResourceRules: PolicyRule[] } {
	const resourceRules: PolicyRule[] = [];
	const nonResourceRules: PolicyRule[] = [];
	for (const bound of applicable(src, user, namespace || undefined)) {
		for (const r of bound.rules) {
			if ((r.nonResourceURLs ?? []).length > 0) {
				nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] });
			} else {
				resourceRules.push({
					verbs: r.verbs,
					apiGroups: r.apiGroups ?? [],
					resources: r.resources ?? [],
					...((r.resourceNames ?? []).length > 0 ? { resourceNames: r.resourceNames } : {}),
				});
			}
		}
	}
	return { resourceRules, nonResourceRules };
}

/** The resource as a Forbidden names it: `pods`, `roles.rbac.authorization.k8s.io`. */
function qualified(resource: string, group: string): string {
	return group ? `${resource}.${group}` : resource;
}

/**
 * The 403 of a denied request, worded as kube-apiserver words it: `pods "p" is forbidden:
 * User "u" cannot delete resource "pods" in API group "" in the namespace "ns"`, `... at the
 * cluster scope`, `forbidden: User "u" cannot get path "/x"`; `reason` (if any) follows.
 */
export function forbiddenError(user: string, a: Attributes, reason = ''): SimError {
	const tail = reason ? `: ${reason}` : '';
	if (!a.resourceRequest) {
		return new SimError(
			403,
			'Forbidden',
			`forbidden: User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path ?? '')}${tail}`,
			{},
		);
	}
	const resource = a.resource ?? '';
	const group = a.apiGroup ?? '';
	const full = a.subresource ? `${resource}/${a.subresource}` : resource;
	const scope = a.namespace
		? `in the namespace ${JSON.stringify(a.namespace)}`
		: 'at the cluster scope';
	const what = a.name
		? `${qualified(resource, group)} ${JSON.stringify(a.name)} is forbidden`
		: `${qualified(resource, group)} is forbidden`;
	const details: Record<string, unknown> = { ...(a.name ? { name: a.name } : {}) };
	if (group) details.group = group;
	details.kind = resource;
	return new SimError(
		403,
		'Forbidden',
		`${what}: User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(full)} in API group ${JSON.stringify(group)} ${scope}${tail}`,
		details,
	);
}

/** The API group of a served resource name ('' for core and unknown ones). */
export function groupOf(resource: string): string {
	return RESOURCES.get(resource)?.group ?? '';
}
