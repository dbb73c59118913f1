/**
 * The default RBAC policy kube-apiserver creates at start (a subset): cluster-admin bound to
 * system:masters, and the discovery, basic-user and public-info roles every authenticated
 * user holds; plus view, edit and admin for the resources the simulator serves.
 */

import type { SimObject } from './store-api.js';

const META = {
	labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
	annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

function clusterRole(name: string, rules: Record<string, unknown>[]): SimObject {
	return {
		apiVersion: 'rbac.authorization.k8s.io/v1',
		kind: 'ClusterRole',
		metadata: { name, ...structuredClone(META) },
		rules,
	};
}

function clusterRoleBinding(name: string, role: string, groups: string[]): SimObject {
	return {
		apiVersion: 'rbac.authorization.k8s.io/v1',
		kind: 'ClusterRoleBinding',
		metadata: { name, ...structuredClone(META) },
		roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
		subjects: groups.map((g) => ({
			apiGroup: 'rbac.authorization.k8s.io',
			kind: 'Group',
			name: g,
		})),
	};
}

const CORE_NAMESPACED = [
	'configmaps',
	'events',
	'persistentvolumeclaims',
	'pods',
	'pods/log',
	'pods/status',
	'services',
	'serviceaccounts',
];

/** The bootstrap ClusterRoles. */
export function bootstrapClusterRoles(): SimObject[] {
	return [
		clusterRole('cluster-admin', [
			{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
			{ nonResourceURLs: ['*'], verbs: ['*'] },
		]),
		clusterRole('system:discovery', [
			{
				nonResourceURLs: [
					'/api',
					'/api/*',
					'/apis',
					'/apis/*',
					'/healthz',
					'/livez',
					'/openapi',
					'/openapi/*',
					'/readyz',
					'/version',
					'/version/',
				],
				verbs: ['get'],
			},
		]),
		clusterRole('system:basic-user', [
			{
				apiGroups: ['authorization.k8s.io'],
				resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
				verbs: ['create'],
			},
			{
				apiGroups: ['authentication.k8s.io'],
				resources: ['selfsubjectreviews'],
				verbs: ['create'],
			},
		]),
		clusterRole('system:public-info-viewer', [
			{
				nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'],
				verbs: ['get'],
			},
		]),
		clusterRole('view', [
			{ apiGroups: [''], resources: [...CORE_NAMESPACED, 'namespaces'], verbs: READ },
			{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: READ },
			{ apiGroups: ['apps'], resources: ['deployments'], verbs: READ },
		]),
		clusterRole('edit', [
			{ apiGroups: [''], resources: [...CORE_NAMESPACED, 'namespaces'], verbs: READ },
			{
				apiGroups: [''],
				resources: [
					'configmaps',
					'persistentvolumeclaims',
					'pods',
					'pods/exec',
					'pods/eviction',
					'secrets',
					'services',
					'serviceaccounts',
				],
				verbs: WRITE,
			},
			{ apiGroups: [''], resources: ['pods/exec'], verbs: ['get'] },
			{ apiGroups: [''], resources: ['secrets'], verbs: READ },
			{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
			{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: [...READ, ...WRITE] },
			{ apiGroups: ['apps'], resources: ['deployments'], verbs: [...READ, ...WRITE] },
		]),
		clusterRole('admin', [
			{ apiGroups: [''], resources: ['*'], verbs: ['*'] },
			{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['*'] },
			{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] },
			{
				apiGroups: ['rbac.authorization.k8s.io'],
				resources: ['roles', 'rolebindings'],
				verbs: [...READ, ...WRITE],
			},
			{
				apiGroups: ['authorization.k8s.io'],
				resources: ['localsubjectaccessreviews'],
				verbs: ['create'],
			},
		]),
	];
}

/** The bootstrap ClusterRoleBindings. */
export function bootstrapClusterRoleBindings(): SimObject[] {
	return [
		clusterRoleBinding('cluster-admin', 'cluster-admin', ['system:masters']),
		clusterRoleBinding('system:discovery', 'system:discovery', ['system:authenticated']),
		clusterRoleBinding('system:basic-user', 'system:basic-user', ['system:authenticated']),
		clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
			'system:authenticated',
			'system:unauthenticated',
		]),
	];
}
