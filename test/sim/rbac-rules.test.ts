/**
 * RBAC rule matching, the 403 texts and the validation of the RBAC kinds, as kube-apiserver
 * 1.32 words and decides them.
 */

import { describe, expect, it } from 'vitest';
import { forbiddenError, ruleAllows, subjectMatches } from '../../source/sim/rbac.js';
import { Store } from '../../source/sim/store.js';

const res = (verb: string, resource: string, o: Record<string, string> = {}) => ({
	verb,
	resourceRequest: true,
	apiGroup: '',
	resource,
	...o,
});

describe('rule matching', () => {
	it('matches verbs, groups, resources, subresources, names and URLs as RBAC does', () => {
		const pods = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
		expect(ruleAllows(pods, res('get', 'pods'))).toBe(true);
		expect(ruleAllows(pods, res('list', 'pods'))).toBe(false);
		expect(ruleAllows(pods, res('get', 'pods', { subresource: 'log' }))).toBe(false);
		expect(ruleAllows(pods, res('get', 'pods', { apiGroup: 'apps' }))).toBe(false);
		const anySub = { verbs: ['create'], apiGroups: [''], resources: ['*/exec'] };
		expect(ruleAllows(anySub, res('create', 'pods', { subresource: 'exec' }))).toBe(true);
		expect(ruleAllows(anySub, res('create', 'pods'))).toBe(false);
		const all = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
		expect(
			ruleAllows(
				all,
				res('delete', 'leases', { apiGroup: 'coordination.k8s.io', subresource: 'x' }),
			),
		).toBe(true);
		const named = {
			verbs: ['get', 'create'],
			apiGroups: [''],
			resources: ['configmaps'],
			resourceNames: ['a'],
		};
		expect(ruleAllows(named, res('get', 'configmaps', { name: 'a' }))).toBe(true);
		expect(ruleAllows(named, res('get', 'configmaps', { name: 'b' }))).toBe(false);
		expect(ruleAllows(named, res('create', 'configmaps'))).toBe(false);
		const urls = { verbs: ['get'], nonResourceURLs: ['/apis/*', '/version'] };
		const path = (p: string) => ({ verb: 'get', resourceRequest: false, path: p });
		expect(ruleAllows(urls, path('/apis/coordination.k8s.io/v1'))).toBe(true);
		expect(ruleAllows(urls, path('/version'))).toBe(true);
		expect(ruleAllows(urls, path('/version/x'))).toBe(false);
		expect(ruleAllows(urls, res('get', 'pods'))).toBe(false);
	});

	it('matches subjects: users, groups, and service accounts in the binding namespace', () => {
		const sa = { username: 'system:serviceaccount:corral:x', groups: ['system:serviceaccounts'] };
		expect(subjectMatches({ kind: 'ServiceAccount', name: 'x' }, sa, 'corral')).toBe(true);
		expect(subjectMatches({ kind: 'ServiceAccount', name: 'x' }, sa, 'other')).toBe(false);
		expect(subjectMatches({ kind: 'ServiceAccount', name: 'x', namespace: 'corral' }, sa)).toBe(
			true,
		);
		expect(subjectMatches({ kind: 'Group', name: 'system:serviceaccounts' }, sa)).toBe(true);
		expect(subjectMatches({ kind: 'User', name: 'x' }, sa)).toBe(false);
	});
});

describe('403 texts', () => {
	it('names the resource, verb, group and scope as a real server', () => {
		const u = 'system:serviceaccount:corral-vms:x';
		expect(forbiddenError(u, res('list', 'pods', { namespace: 'corral-vms' })).message).toBe(
			'pods is forbidden: User "system:serviceaccount:corral-vms:x" cannot list resource "pods" in API group "" in the namespace "corral-vms"',
		);
		const sub = forbiddenError(
			u,
			res('create', 'pods', { namespace: 'n', name: 'p', subresource: 'exec' }),
		);
		expect(sub.message).toBe(
			'pods "p" is forbidden: User "system:serviceaccount:corral-vms:x" cannot create resource "pods/exec" in API group "" in the namespace "n"',
		);
		expect(sub.status.details).toEqual({ name: 'p', kind: 'pods' });
		const cluster = forbiddenError(
			u,
			res('list', 'clusterroles', { apiGroup: 'rbac.authorization.k8s.io' }),
		);
		expect(cluster.message).toBe(
			'clusterroles.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:corral-vms:x" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
		);
		expect(
			forbiddenError(u, { verb: 'get', resourceRequest: false, path: '/metrics' }).message,
		).toBe('forbidden: User "system:serviceaccount:corral-vms:x" cannot get path "/metrics"');
	});
});

describe('validation of the RBAC kinds and Secrets', () => {
	const store = new Store();
	store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'corral' } });
	const fails = (resource: string, obj: Record<string, unknown>) => {
		try {
			store.create(resource, obj as never);
		} catch (e) {
			return (e as Error).message;
		}
		return 'created';
	};

	it('refuses bad rules, roleRefs and subjects with the real messages', () => {
		expect(
			fails('roles', {
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'Role',
				metadata: { name: 'r', namespace: 'corral' },
				rules: [
					{ verbs: ['get'], nonResourceURLs: ['/x'] },
					{ verbs: [], apiGroups: [''] },
				],
			}),
		).toBe(
			'Role.rbac.authorization.k8s.io "r" is invalid: [rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs, rules[1].verbs: Required value: verbs must contain at least one value, rules[1].resources: Required value: resource rules must supply at least one resource]',
		);
		expect(
			fails('clusterrolebindings', {
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'ClusterRoleBinding',
				metadata: { name: 'b' },
				roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
				subjects: [
					{ kind: 'ServiceAccount', name: 'x' },
					{ kind: 'Robot', name: 'y' },
				],
			}),
		).toBe(
			'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value, subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
		);
		expect(
			fails('clusterroles', {
				apiVersion: 'rbac.authorization.k8s.io/v1',
				kind: 'ClusterRole',
				metadata: { name: 'system:thing' },
				rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
			}),
		).toBe('created');
	});

	it('folds stringData into data, defaults the type, and keeps a Secret’s type', () => {
		const s = store.create('secrets', {
			apiVersion: 'v1',
			kind: 'Secret',
			metadata: { name: 's', namespace: 'corral' },
			stringData: { a: 'hello' },
		});
		expect(s).toMatchObject({
			type: 'Opaque',
			data: { a: Buffer.from('hello').toString('base64') },
		});
		expect(s.stringData).toBeUndefined();
		expect(
			fails('secrets', {
				apiVersion: 'v1',
				kind: 'Secret',
				metadata: { name: 't', namespace: 'corral' },
				type: 'kubernetes.io/service-account-token',
			}),
		).toBe(
			'Secret "t" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value',
		);
	});
});
