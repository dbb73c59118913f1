/** The resources the simulated API server knows: names, kinds, groups, scope and verbs. */

/** One served resource, as discovery describes it. */
export interface ResourceInfo {
	/** Plural name as in the URL ('pods'). */
	name: string;
	/** Singular name ('pod'). */
	singularName: string;
	/** Kind ('Pod'). */
	kind: string;
	/** API group; '' for the core group. */
	group: string;
	/** API version ('v1'). */
	version: string;
	/** Whether objects live in a namespace. */
	namespaced: boolean;
	/** Verbs as discovery lists them. */
	verbs: string[];
	/** Short names kubectl accepts ('po'). */
	shortNames?: string[];
	/** Categories ('all'). */
	categories?: string[];
	/** Whether the resource has a status subresource (PUT on the main resource keeps status). */
	statusSubresource: boolean;
	/** Field selector keys beyond metadata.name and metadata.namespace. */
	fields: string[];
}

/** The kinds of the rbac.authorization.k8s.io resources. */
const RBAC_KINDS = {
	roles: 'Role',
	clusterroles: 'ClusterRole',
	rolebindings: 'RoleBinding',
	clusterrolebindings: 'ClusterRoleBinding',
} as const;

const CRUD = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Every resource the simulator serves, by plural name. */
export const RESOURCES: ReadonlyMap<string, ResourceInfo> = new Map(
	(
		[
			{
				name: 'namespaces',
				singularName: 'namespace',
				kind: 'Namespace',
				group: '',
				version: 'v1',
				namespaced: false,
				verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
				shortNames: ['ns'],
				statusSubresource: true,
				fields: ['status.phase'],
			},
			{
				name: 'nodes',
				singularName: 'node',
				kind: 'Node',
				group: '',
				version: 'v1',
				namespaced: false,
				verbs: CRUD,
				shortNames: ['no'],
				statusSubresource: true,
				fields: ['spec.unschedulable'],
			},
			{
				name: 'configmaps',
				singularName: 'configmap',
				kind: 'ConfigMap',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				shortNames: ['cm'],
				statusSubresource: false,
				fields: [],
			},
			{
				name: 'pods',
				singularName: 'pod',
				kind: 'Pod',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				shortNames: ['po'],
				categories: ['all'],
				statusSubresource: true,
				fields: [
					'spec.nodeName',
					'spec.restartPolicy',
					'spec.schedulerName',
					'spec.serviceAccountName',
					'spec.hostNetwork',
					'status.phase',
					'status.podIP',
					'status.nominatedNodeName',
				],
			},
			{
				name: 'persistentvolumeclaims',
				singularName: 'persistentvolumeclaim',
				kind: 'PersistentVolumeClaim',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				shortNames: ['pvc'],
				statusSubresource: true,
				fields: [],
			},
			{
				name: 'services',
				singularName: 'service',
				kind: 'Service',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
				shortNames: ['svc'],
				categories: ['all'],
				statusSubresource: true,
				fields: ['spec.clusterIP', 'spec.type'],
			},
			{
				name: 'events',
				singularName: 'event',
				kind: 'Event',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				shortNames: ['ev'],
				statusSubresource: false,
				fields: [
					'involvedObject.kind',
					'involvedObject.namespace',
					'involvedObject.name',
					'involvedObject.uid',
					'involvedObject.apiVersion',
					'involvedObject.resourceVersion',
					'involvedObject.fieldPath',
					'reason',
					'reportingComponent',
					'source',
					'type',
				],
			},
			{
				name: 'leases',
				singularName: 'lease',
				kind: 'Lease',
				group: 'coordination.k8s.io',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				statusSubresource: false,
				fields: [],
			},
			{
				name: 'deployments',
				singularName: 'deployment',
				kind: 'Deployment',
				group: 'apps',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				shortNames: ['deploy'],
				categories: ['all'],
				statusSubresource: true,
				fields: [],
			},
			{
				name: 'storageclasses',
				singularName: 'storageclass',
				kind: 'StorageClass',
				group: 'storage.k8s.io',
				version: 'v1',
				namespaced: false,
				verbs: CRUD,
				shortNames: ['sc'],
				statusSubresource: false,
				fields: [],
			},
			{
				name: 'serviceaccounts',
				singularName: 'serviceaccount',
				kind: 'ServiceAccount',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				shortNames: ['sa'],
				statusSubresource: false,
				fields: [],
			},
			{
				name: 'secrets',
				singularName: 'secret',
				kind: 'Secret',
				group: '',
				version: 'v1',
				namespaced: true,
				verbs: CRUD,
				statusSubresource: false,
				fields: ['type'],
			},
			...(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as const).map(
				(name) => ({
					name,
					singularName: name.slice(0, -1),
					kind: RBAC_KINDS[name],
					group: 'rbac.authorization.k8s.io',
					version: 'v1',
					namespaced: !name.startsWith('cluster'),
					verbs: CRUD,
					statusSubresource: false,
					fields: [],
				}),
			),
		] satisfies ResourceInfo[]
	).map((r) => [r.name, r]),
);

/** The resource info for a plural name; unknown names get a namespaced core-like default. */
export function resourceInfo(resource: string): ResourceInfo {
	const known = RESOURCES.get(resource);
	if (known) return known;
	return {
		name: resource,
		singularName: resource.replace(/s$/, ''),
		kind: resource.charAt(0).toUpperCase() + resource.slice(1).replace(/s$/, ''),
		group: '',
		version: 'v1',
		namespaced: true,
		verbs: CRUD,
		statusSubresource: false,
		fields: [],
	};
}

/** The resource as error messages name it: 'pods', 'leases.coordination.k8s.io'. */
export function qualifiedResource(resource: string): string {
	const info = RESOURCES.get(resource);
	return info?.group ? `${info.name}.${info.group}` : resource;
}

/** The apiVersion objects of the resource carry ('v1', 'coordination.k8s.io/v1'). */
export function apiVersionOf(info: ResourceInfo): string {
	return info.group ? `${info.group}/${info.version}` : info.version;
}
