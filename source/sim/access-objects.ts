/**
 * The access-control kinds as stored objects: defaulting and validation of Secrets,
 * ServiceAccounts, Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, with the
 * messages of kube-apiserver 1.32 (pkg/apis/rbac/validation, pkg/apis/core/validation).
 */

import { forbiddenField, invalidValue, type StatusCause } from './errors.js';
import type { SimObject } from './store-api.js';

type Rec = Record<string, unknown>;

/** The API group of the RBAC kinds. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The resources this file validates. */
export const ACCESS_RESOURCES: ReadonlySet<string> = new Set([
	'secrets',
	'serviceaccounts',
	'roles',
	'clusterroles',
	'rolebindings',
	'clusterrolebindings',
]);

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

function strings(v: unknown): string[] {
	return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function goStrings(v: string[]): string {
	return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
}

function notSupported(field: string, value: unknown, supported: string[]): StatusCause {
	return {
		reason: 'FieldValueNotSupported',
		message: `Unsupported value: ${JSON.stringify(value ?? '')}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
		field,
	};
}

function requiredValue(field: string, detail = ''): StatusCause {
	return {
		reason: 'FieldValueRequired',
		message: detail ? `Required value: ${detail}` : 'Required value',
		field,
	};
}

/** The causes when `name` is not a valid path segment (RBAC names may hold ':'). */
export function checkPathSegmentName(field: string, name: string): StatusCause[] {
	const out: string[] = [];
	if (name === '.' || name === '..') out.push(`may not be '${name}'`);
	for (const bad of ['/', '%']) if (name.includes(bad)) out.push(`may not contain '${bad}'`);
	return out.map((msg) => invalidValue(field, name, msg));
}

/**
 * Fills in what the server defaults on a write of an access kind: a Secret's `stringData`
 * folded into base64 `data` and its type defaulted to Opaque; a binding subject's apiGroup.
 */
export function defaultAccessObject(resource: string, obj: SimObject): void {
	if (resource === 'secrets') {
		const string = rec(obj.stringData);
		if (obj.stringData !== undefined) {
			const data = { ...rec(obj.data) };
			for (const [k, v] of Object.entries(string)) {
				data[k] = Buffer.from(String(v), 'utf8').toString('base64');
			}
			obj.data = data;
			delete obj.stringData;
		}
		if (!obj.type) obj.type = 'Opaque';
		return;
	}
	if (resource === 'rolebindings' || resource === 'clusterrolebindings') {
		for (const s of Array.isArray(obj.subjects) ? obj.subjects : []) {
			const sub = rec(s);
			if (sub.apiGroup === undefined || sub.apiGroup === '') {
				if (sub.kind === 'User' || sub.kind === 'Group') sub.apiGroup = RBAC_GROUP;
			}
		}
	}
}

function checkRule(rule: Rec, i: number, namespaced: boolean): StatusCause[] {
	const out: StatusCause[] = [];
	const f = `rules[${i}]`;
	if (strings(rule.verbs).length === 0) {
		out.push(requiredValue(`${f}.verbs`, 'verbs must contain at least one value'));
	}
	const urls = strings(rule.nonResourceURLs);
	if (urls.length > 0) {
		if (namespaced) {
			out.push(
				invalidValue(
					`${f}.nonResourceURLs`,
					goStrings(urls),
					'namespaced rules cannot apply to non-resource URLs',
				),
			);
		}
		if (
			strings(rule.apiGroups).length > 0 ||
			strings(rule.resources).length > 0 ||
			strings(rule.resourceNames).length > 0
		) {
			out.push(
				invalidValue(
					`${f}.nonResourceURLs`,
					goStrings(urls),
					'rules cannot apply to both regular resources and non-resource URLs',
				),
			);
		}
		return out.map(unquoteGo);
	}
	if (strings(rule.apiGroups).length === 0) {
		out.push(requiredValue(`${f}.apiGroups`, 'resource rules must supply at least one api group'));
	}
	if (strings(rule.resources).length === 0) {
		out.push(requiredValue(`${f}.resources`, 'resource rules must supply at least one resource'));
	}
	return out;
}

/** invalidValue JSON-quotes its value; Go prints a slice or struct value bare. */
function unquoteGo(c: StatusCause): StatusCause {
	return {
		...c,
		message: c.message.replace(
			/^Invalid value: "((?:\\.|[^"\\])*)"/,
			(_m, v: string) => `Invalid value: ${JSON.parse(`"${v}"`) as string}`,
		),
	};
}

function checkSubject(subject: Rec, i: number, namespaced: boolean): StatusCause[] {
	const out: StatusCause[] = [];
	const f = `subjects[${i}]`;
	const name = typeof subject.name === 'string' ? subject.name : '';
	if (!name) out.push(requiredValue(`${f}.name`));
	const group = typeof subject.apiGroup === 'string' ? subject.apiGroup : '';
	switch (subject.kind) {
		case 'ServiceAccount':
			if (group) out.push(notSupported(`${f}.apiGroup`, group, ['']));
			if (!namespaced && !subject.namespace) out.push(requiredValue(`${f}.namespace`));
			break;
		case 'User':
		case 'Group':
			if (group !== RBAC_GROUP) out.push(notSupported(`${f}.apiGroup`, group, [RBAC_GROUP]));
			break;
		default:
			out.push(notSupported(`${f}.kind`, subject.kind, ['ServiceAccount', 'User', 'Group']));
	}
	return out;
}

function checkBinding(obj: SimObject, namespaced: boolean): StatusCause[] {
	const out: StatusCause[] = [];
	const ref = rec(obj.roleRef);
	if (ref.apiGroup !== RBAC_GROUP)
		out.push(notSupported('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP]));
	const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
	if (!kinds.includes(String(ref.kind))) out.push(notSupported('roleRef.kind', ref.kind, kinds));
	const name = typeof ref.name === 'string' ? ref.name : '';
	if (!name) out.push(requiredValue('roleRef.name'));
	else out.push(...checkPathSegmentName('roleRef.name', name));
	const subjects = Array.isArray(obj.subjects) ? obj.subjects : [];
	subjects.forEach((s, i) => {
		out.push(...checkSubject(rec(s), i, namespaced));
	});
	return out;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

function checkSecret(obj: SimObject): StatusCause[] {
	const out: StatusCause[] = [];
	let total = 0;
	for (const [k, v] of Object.entries(rec(obj.data))) {
		if (!CONFIG_KEY.test(k) || k.length > 253) {
			out.push(
				invalidValue(
					`data[${k}]`,
					k,
					"a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
				),
			);
		}
		if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) {
			out.push({
				reason: 'FieldValueInvalid',
				message: `Invalid value: ${JSON.stringify(v)}: illegal base64 data`,
				field: `data[${k}]`,
			});
		} else total += Buffer.from(v, 'base64').length;
	}
	if (total > 1024 * 1024) {
		out.push({
			reason: 'FieldValueTooLong',
			message: 'Too long: may not be more than 1048576 bytes',
			field: 'data',
		});
	}
	if (obj.type === 'kubernetes.io/service-account-token') {
		const ann = obj.metadata.annotations ?? {};
		if (!ann['kubernetes.io/service-account.name']) {
			out.push(requiredValue('metadata.annotations[kubernetes.io/service-account.name]'));
		}
	}
	return out;
}

/** The 422 causes of an access kind's object on create or update (none for other kinds). */
export function validateAccessObject(resource: string, obj: SimObject): StatusCause[] {
	switch (resource) {
		case 'roles':
		case 'clusterroles': {
			const rules = Array.isArray(obj.rules) ? obj.rules : [];
			return rules.flatMap((r, i) => checkRule(rec(r), i, resource === 'roles'));
		}
		case 'rolebindings':
			return checkBinding(obj, true);
		case 'clusterrolebindings':
			return checkBinding(obj, false);
		case 'secrets':
			return checkSecret(obj);
		default:
			return [];
	}
}

/** Whether names of the resource are path segments (RBAC) rather than DNS subdomains. */
export function hasPathSegmentNames(resource: string): boolean {
	return (
		resource === 'roles' ||
		resource === 'clusterroles' ||
		resource === 'rolebindings' ||
		resource === 'clusterrolebindings'
	);
}

/** The 422 causes of an update that changes what the kind forbids: a roleRef, a Secret's type or immutable data. */
export function accessUpdateCauses(
	resource: string,
	current: SimObject,
	next: SimObject,
): StatusCause[] {
	if (resource === 'rolebindings' || resource === 'clusterrolebindings') {
		const a = rec(current.roleRef);
		const b = rec(next.roleRef);
		if (a.apiGroup !== b.apiGroup || a.kind !== b.kind || a.name !== b.name) {
			return [
				{
					reason: 'FieldValueInvalid',
					message: `Invalid value: rbac.RoleRef{APIGroup:${JSON.stringify(String(b.apiGroup ?? ''))}, Kind:${JSON.stringify(String(b.kind ?? ''))}, Name:${JSON.stringify(String(b.name ?? ''))}}: cannot change roleRef`,
					field: 'roleRef',
				},
			];
		}
		return [];
	}
	if (resource === 'secrets') {
		const out: StatusCause[] = [];
		const nextType = next.type || 'Opaque';
		if (current.type !== nextType) {
			out.push(invalidValue('type', nextType, 'field is immutable'));
		}
		if (current.immutable === true) {
			if (JSON.stringify(current.data ?? {}) !== JSON.stringify(next.data ?? {})) {
				out.push(forbiddenField('data', 'field is immutable when `immutable` is set'));
			}
			if (next.immutable !== true) {
				out.push(forbiddenField('immutable', 'field is immutable when `immutable` is set'));
			}
		}
		return out;
	}
	return [];
}
