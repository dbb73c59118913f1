/**
 * The schema of every kind the simulated cluster serves, as one table of field types: the
 * single source of both field validation (unknown and duplicate fields, fieldValidation)
 * and the OpenAPI v3 documents (`kubectl explain`).
 *
 * A definition is keyed `group.version.Name` (`core.v1.PodSpec`, `meta.v1.ObjectMeta`) and
 * lists its fields with a type written as:
 *   string | integer (int64) | int32 | number | boolean | quantity | int-or-string | time |
 *   micro-time
 *   any        a subtree the simulator does not check (x-kubernetes-preserve-unknown-fields)
 *   []T        a list of T          map[T]   an object of T values
 *   a key      another definition (`core.v1.Container`)
 * Adding a kind: add its definitions here and name its root in ROOTS (by plural resource).
 */

/** One definition: its description and its fields (name -> type, or [type, description]). */
export interface SchemaDef {
	/** What `kubectl explain` shows for the type. */
	description: string;
	/** Field name -> type, or [type, description]. */
	fields: Record<string, string | [string, string]>;
}

const TYPE_META = {
	apiVersion: [
		'string',
		'APIVersion defines the versioned schema of this representation of an object.',
	],
	kind: ['string', 'Kind is a string value representing the REST resource this object represents.'],
	metadata: [
		'meta.v1.ObjectMeta',
		'Standard object metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
	],
} as const satisfies Record<string, [string, string]>;

const CONTAINER: SchemaDef['fields'] = {
	args: ['[]string', 'Arguments to the entrypoint.'],
	command: [
		'[]string',
		"Entrypoint array. Not executed within a shell. The image's ENTRYPOINT is used if this is not provided.",
	],
	env: ['[]core.v1.EnvVar', 'List of environment variables to set in the container.'],
	envFrom: '[]any',
	image: ['string', 'Container image name.'],
	imagePullPolicy: ['string', 'Image pull policy. One of Always, Never, IfNotPresent.'],
	lifecycle: 'any',
	livenessProbe: 'core.v1.Probe',
	name: [
		'string',
		'Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name.',
	],
	ports: ['[]core.v1.ContainerPort', 'List of ports to expose from the container.'],
	readinessProbe: 'core.v1.Probe',
	resizePolicy: '[]any',
	resources: ['core.v1.ResourceRequirements', 'Compute Resources required by this container.'],
	restartPolicy: 'string',
	securityContext: [
		'core.v1.SecurityContext',
		'SecurityContext defines the security options the container should be run with.',
	],
	startupProbe: 'core.v1.Probe',
	stdin: 'boolean',
	stdinOnce: 'boolean',
	terminationMessagePath: 'string',
	terminationMessagePolicy: 'string',
	tty: 'boolean',
	volumeDevices: '[]any',
	volumeMounts: ['[]core.v1.VolumeMount', "Pod volumes to mount into the container's filesystem."],
	workingDir: 'string',
};

const POD_SPEC: SchemaDef['fields'] = {
	activeDeadlineSeconds: 'integer',
	affinity: 'any',
	automountServiceAccountToken: 'boolean',
	containers: [
		'[]core.v1.Container',
		'List of containers belonging to the pod. There must be at least one container in a Pod.',
	],
	dnsConfig: 'any',
	dnsPolicy: 'string',
	enableServiceLinks: 'boolean',
	ephemeralContainers: '[]any',
	hostAliases: '[]any',
	hostIPC: 'boolean',
	hostNetwork: 'boolean',
	hostPID: 'boolean',
	hostUsers: 'boolean',
	hostname: [
		'string',
		"Specifies the hostname of the Pod. If not specified, the pod's hostname will be set to a system-defined value.",
	],
	imagePullSecrets: '[]core.v1.LocalObjectReference',
	initContainers: '[]core.v1.Container',
	nodeName: 'string',
	nodeSelector: 'map[string]',
	os: 'any',
	overhead: 'map[quantity]',
	preemptionPolicy: 'string',
	priority: 'int32',
	priorityClassName: 'string',
	readinessGates: '[]any',
	resourceClaims: '[]any',
	resources: 'core.v1.ResourceRequirements',
	restartPolicy: [
		'string',
		'Restart policy for all containers within the pod. One of Always, OnFailure, Never.',
	],
	runtimeClassName: 'string',
	schedulerName: 'string',
	schedulingGates: '[]any',
	securityContext: 'core.v1.PodSecurityContext',
	serviceAccount: 'string',
	serviceAccountName: 'string',
	setHostnameAsFQDN: 'boolean',
	shareProcessNamespace: 'boolean',
	subdomain: 'string',
	terminationGracePeriodSeconds: [
		'integer',
		'Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.',
	],
	tolerations: '[]core.v1.Toleration',
	topologySpreadConstraints: '[]any',
	volumes: [
		'[]core.v1.Volume',
		'List of volumes that can be mounted by containers belonging to the pod.',
	],
};

/** Volume sources the simulator does not look into (any shape is kept). */
const OTHER_VOLUME_SOURCES = [
	'awsElasticBlockStore',
	'azureDisk',
	'azureFile',
	'cephfs',
	'cinder',
	'configMap',
	'csi',
	'downwardAPI',
	'ephemeral',
	'fc',
	'flexVolume',
	'flocker',
	'gcePersistentDisk',
	'gitRepo',
	'glusterfs',
	'image',
	'iscsi',
	'nfs',
	'photonPersistentDisk',
	'portworxVolume',
	'projected',
	'quobyte',
	'rbd',
	'scaleIO',
	'secret',
	'storageos',
	'vsphereVolume',
];

/** Every definition, by key. */
export const DEFINITIONS: Record<string, SchemaDef> = {
	// ---- meta.k8s.io ----
	'meta.v1.ObjectMeta': {
		description:
			'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
		fields: {
			annotations: [
				'map[string]',
				'Annotations is an unstructured key value map stored with a resource.',
			],
			creationTimestamp: 'time',
			deletionGracePeriodSeconds: 'integer',
			deletionTimestamp: 'time',
			finalizers: '[]string',
			generateName: [
				'string',
				'GenerateName is an optional prefix, used by the server, to generate a unique name.',
			],
			generation: 'integer',
			labels: [
				'map[string]',
				'Map of string keys and values that can be used to organize and categorize objects.',
			],
			managedFields: '[]any',
			name: ['string', 'Name must be unique within a namespace.'],
			namespace: ['string', 'Namespace defines the space within which each name must be unique.'],
			ownerReferences: '[]meta.v1.OwnerReference',
			resourceVersion: 'string',
			selfLink: 'string',
			uid: 'string',
		},
	},
	'meta.v1.OwnerReference': {
		description: 'OwnerReference contains enough information to let you identify an owning object.',
		fields: {
			apiVersion: 'string',
			blockOwnerDeletion: 'boolean',
			controller: 'boolean',
			kind: 'string',
			name: 'string',
			uid: 'string',
		},
	},
	'meta.v1.LabelSelector': {
		description: 'A label selector is a label query over a set of resources.',
		fields: {
			matchExpressions: '[]meta.v1.LabelSelectorRequirement',
			matchLabels: 'map[string]',
		},
	},
	'meta.v1.LabelSelectorRequirement': {
		description:
			'A label selector requirement is a selector that contains values, a key, and an operator.',
		fields: { key: 'string', operator: 'string', values: '[]string' },
	},

	// ---- core/v1 ----
	'core.v1.Pod': {
		description: 'Pod is a collection of containers that can run on a host.',
		fields: {
			...TYPE_META,
			spec: ['core.v1.PodSpec', 'Specification of the desired behavior of the pod.'],
			status: ['any', 'Most recently observed status of the pod. Read-only.'],
		},
	},
	'core.v1.PodSpec': { description: 'PodSpec is a description of a pod.', fields: POD_SPEC },
	'core.v1.PodTemplateSpec': {
		description:
			'PodTemplateSpec describes the data a pod should have when created from a template.',
		fields: { metadata: TYPE_META.metadata, spec: 'core.v1.PodSpec' },
	},
	'core.v1.Container': {
		description: 'A single application container that you want to run within a pod.',
		fields: CONTAINER,
	},
	'core.v1.EnvVar': {
		description: 'EnvVar represents an environment variable present in a Container.',
		fields: { name: 'string', value: 'string', valueFrom: 'any' },
	},
	'core.v1.ContainerPort': {
		description: 'ContainerPort represents a network port in a single container.',
		fields: {
			containerPort: 'int32',
			hostIP: 'string',
			hostPort: 'int32',
			name: 'string',
			protocol: 'string',
		},
	},
	'core.v1.ResourceRequirements': {
		description: 'ResourceRequirements describes the compute resource requirements.',
		fields: {
			claims: '[]any',
			limits: [
				'map[quantity]',
				'Limits describes the maximum amount of compute resources allowed.',
			],
			requests: [
				'map[quantity]',
				'Requests describes the minimum amount of compute resources required.',
			],
		},
	},
	'core.v1.VolumeMount': {
		description: 'VolumeMount describes a mounting of a Volume within a container.',
		fields: {
			mountPath: 'string',
			mountPropagation: 'string',
			name: 'string',
			readOnly: 'boolean',
			recursiveReadOnly: 'string',
			subPath: 'string',
			subPathExpr: 'string',
		},
	},
	'core.v1.SecurityContext': {
		description:
			'SecurityContext holds security configuration that will be applied to a container.',
		fields: {
			allowPrivilegeEscalation: 'boolean',
			appArmorProfile: 'any',
			capabilities: 'core.v1.Capabilities',
			privileged: ['boolean', 'Run container in privileged mode. Defaults to false.'],
			procMount: 'string',
			readOnlyRootFilesystem: 'boolean',
			runAsGroup: 'integer',
			runAsNonRoot: 'boolean',
			runAsUser: 'integer',
			seLinuxOptions: 'any',
			seccompProfile: 'any',
			windowsOptions: 'any',
		},
	},
	'core.v1.Capabilities': {
		description: 'Adds and removes POSIX capabilities from running containers.',
		fields: { add: '[]string', drop: '[]string' },
	},
	'core.v1.PodSecurityContext': {
		description:
			'PodSecurityContext holds pod-level security attributes and common container settings.',
		fields: {
			appArmorProfile: 'any',
			fsGroup: 'integer',
			fsGroupChangePolicy: 'string',
			runAsGroup: 'integer',
			runAsNonRoot: 'boolean',
			runAsUser: 'integer',
			seLinuxChangePolicy: 'string',
			seLinuxOptions: 'any',
			seccompProfile: 'any',
			supplementalGroups: '[]integer',
			supplementalGroupsPolicy: 'string',
			sysctls: '[]any',
			windowsOptions: 'any',
		},
	},
	'core.v1.Probe': {
		description: 'Probe describes a health check to be performed against a container.',
		fields: {
			exec: 'any',
			failureThreshold: 'int32',
			grpc: 'any',
			httpGet: 'any',
			initialDelaySeconds: 'int32',
			periodSeconds: 'int32',
			successThreshold: 'int32',
			tcpSocket: 'any',
			terminationGracePeriodSeconds: 'integer',
			timeoutSeconds: 'int32',
		},
	},
	'core.v1.Toleration': {
		description:
			'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect>.',
		fields: {
			effect: 'string',
			key: 'string',
			operator: 'string',
			tolerationSeconds: 'integer',
			value: 'string',
		},
	},
	'core.v1.LocalObjectReference': {
		description:
			'LocalObjectReference contains enough information to locate the referenced object inside the same namespace.',
		fields: { name: 'string' },
	},
	'core.v1.Volume': {
		description:
			'Volume represents a named volume in a pod that may be accessed by any container in the pod.',
		fields: {
			name: 'string',
			emptyDir: 'core.v1.EmptyDirVolumeSource',
			hostPath: 'core.v1.HostPathVolumeSource',
			persistentVolumeClaim: 'core.v1.PersistentVolumeClaimVolumeSource',
			...Object.fromEntries(OTHER_VOLUME_SOURCES.map((s) => [s, 'any'])),
		},
	},
	'core.v1.EmptyDirVolumeSource': {
		description: 'Represents an empty directory for a pod.',
		fields: { medium: 'string', sizeLimit: 'quantity' },
	},
	'core.v1.HostPathVolumeSource': {
		description: 'Represents a host path mapped into a pod.',
		fields: { path: 'string', type: 'string' },
	},
	'core.v1.PersistentVolumeClaimVolumeSource': {
		description:
			"PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace.",
		fields: { claimName: 'string', readOnly: 'boolean' },
	},
	'core.v1.PersistentVolumeClaim': {
		description: "PersistentVolumeClaim is a user's request for and claim to a persistent volume.",
		fields: {
			...TYPE_META,
			spec: 'core.v1.PersistentVolumeClaimSpec',
			status: 'any',
		},
	},
	'core.v1.PersistentVolumeClaimSpec': {
		description:
			'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes.',
		fields: {
			accessModes: '[]string',
			dataSource: 'any',
			dataSourceRef: 'any',
			resources: 'core.v1.VolumeResourceRequirements',
			selector: 'meta.v1.LabelSelector',
			storageClassName: 'string',
			volumeAttributesClassName: 'string',
			volumeMode: 'string',
			volumeName: 'string',
		},
	},
	'core.v1.VolumeResourceRequirements': {
		description:
			'VolumeResourceRequirements describes the storage resource requirements for a volume.',
		fields: { limits: 'map[quantity]', requests: 'map[quantity]' },
	},
	'core.v1.ConfigMap': {
		description: 'ConfigMap holds configuration data for pods to consume.',
		fields: {
			...TYPE_META,
			binaryData: 'map[string]',
			data: ['map[string]', 'Data contains the configuration data.'],
			immutable: 'boolean',
		},
	},
	'core.v1.Service': {
		description:
			'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
		fields: { ...TYPE_META, spec: 'core.v1.ServiceSpec', status: 'any' },
	},
	'core.v1.ServiceSpec': {
		description: 'ServiceSpec describes the attributes that a user creates on a service.',
		fields: {
			allocateLoadBalancerNodePorts: 'boolean',
			clusterIP: 'string',
			clusterIPs: '[]string',
			externalIPs: '[]string',
			externalName: 'string',
			externalTrafficPolicy: 'string',
			healthCheckNodePort: 'int32',
			internalTrafficPolicy: 'string',
			ipFamilies: '[]string',
			ipFamilyPolicy: 'string',
			loadBalancerClass: 'string',
			loadBalancerIP: 'string',
			loadBalancerSourceRanges: '[]string',
			ports: '[]core.v1.ServicePort',
			publishNotReadyAddresses: 'boolean',
			selector: 'map[string]',
			sessionAffinity: 'string',
			sessionAffinityConfig: 'any',
			trafficDistribution: 'string',
			type: 'string',
		},
	},
	'core.v1.ServicePort': {
		description: "ServicePort contains information on service's port.",
		fields: {
			appProtocol: 'string',
			name: 'string',
			nodePort: 'int32',
			port: 'int32',
			protocol: 'string',
			targetPort: 'int-or-string',
		},
	},
	'core.v1.Event': {
		description: 'Event is a report of an event somewhere in the cluster.',
		fields: {
			...TYPE_META,
			action: 'string',
			count: 'int32',
			eventTime: 'micro-time',
			firstTimestamp: 'time',
			involvedObject: 'core.v1.ObjectReference',
			lastTimestamp: 'time',
			message: 'string',
			reason: 'string',
			related: 'core.v1.ObjectReference',
			reportingComponent: 'string',
			reportingInstance: 'string',
			series: 'core.v1.EventSeries',
			source: 'core.v1.EventSource',
			type: 'string',
		},
	},
	'core.v1.ObjectReference': {
		description:
			'ObjectReference contains enough information to let you inspect or modify the referred object.',
		fields: {
			apiVersion: 'string',
			fieldPath: 'string',
			kind: 'string',
			name: 'string',
			namespace: 'string',
			resourceVersion: 'string',
			uid: 'string',
		},
	},
	'core.v1.EventSeries': {
		description: 'EventSeries contain information on series of events.',
		fields: { count: 'int32', lastObservedTime: 'micro-time' },
	},
	'core.v1.EventSource': {
		description: 'EventSource contains information for an event.',
		fields: { component: 'string', host: 'string' },
	},
	'core.v1.Namespace': {
		description: 'Namespace provides a scope for Names.',
		fields: { ...TYPE_META, spec: 'core.v1.NamespaceSpec', status: 'any' },
	},
	'core.v1.NamespaceSpec': {
		description: 'NamespaceSpec describes the attributes on a Namespace.',
		fields: { finalizers: '[]string' },
	},
	'core.v1.Node': {
		description: 'Node is a worker node in Kubernetes.',
		fields: { ...TYPE_META, spec: 'core.v1.NodeSpec', status: 'any' },
	},
	'core.v1.NodeSpec': {
		description: 'NodeSpec describes the attributes that a node is created with.',
		fields: {
			configSource: 'any',
			externalID: 'string',
			podCIDR: 'string',
			podCIDRs: '[]string',
			providerID: 'string',
			taints: '[]core.v1.Taint',
			unschedulable: 'boolean',
		},
	},
	'core.v1.Taint': {
		description:
			'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
		fields: { effect: 'string', key: 'string', timeAdded: 'time', value: 'string' },
	},

	// ---- coordination.k8s.io/v1 ----
	'coordination.v1.Lease': {
		description: 'Lease defines a lease concept.',
		fields: { ...TYPE_META, spec: 'coordination.v1.LeaseSpec' },
	},
	'coordination.v1.LeaseSpec': {
		description: 'LeaseSpec is a specification of a Lease.',
		fields: {
			acquireTime: 'micro-time',
			holderIdentity: 'string',
			leaseDurationSeconds: 'int32',
			leaseTransitions: 'int32',
			preferredHolder: 'string',
			renewTime: 'micro-time',
			strategy: 'string',
		},
	},

	// ---- access: core/v1 Secret and ServiceAccount, rbac.authorization.k8s.io/v1 ----
	'core.v1.Secret': {
		description:
			'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
		fields: {
			...TYPE_META,
			data: ['map[string]', 'Data contains the secret data, each value base64 encoded.'],
			immutable: 'boolean',
			stringData: [
				'map[string]',
				'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience.',
			],
			type: ['string', 'Used to facilitate programmatic handling of secret data.'],
		},
	},
	'core.v1.ServiceAccount': {
		description:
			'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets',
		fields: {
			...TYPE_META,
			automountServiceAccountToken: 'boolean',
			imagePullSecrets: '[]core.v1.LocalObjectReference',
			secrets: '[]core.v1.ObjectReference',
		},
	},
	'rbac.v1.PolicyRule': {
		description:
			'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
		fields: {
			apiGroups: ['[]string', 'APIGroups is the name of the APIGroup that contains the resources.'],
			nonResourceURLs: [
				'[]string',
				'NonResourceURLs is a set of partial urls that a user should have access to.',
			],
			resourceNames: [
				'[]string',
				'ResourceNames is an optional white list of names that the rule applies to.',
			],
			resources: [
				'[]string',
				"Resources is a list of resources this rule applies to. '*' represents all resources.",
			],
			verbs: [
				'[]string',
				"Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
			],
		},
	},
	'rbac.v1.Role': {
		description:
			'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
		fields: {
			...TYPE_META,
			rules: ['[]rbac.v1.PolicyRule', 'Rules holds all the PolicyRules for this Role'],
		},
	},
	'rbac.v1.ClusterRole': {
		description:
			'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
		fields: {
			...TYPE_META,
			aggregationRule: 'rbac.v1.AggregationRule',
			rules: ['[]rbac.v1.PolicyRule', 'Rules holds all the PolicyRules for this ClusterRole'],
		},
	},
	'rbac.v1.AggregationRule': {
		description:
			'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole',
		fields: { clusterRoleSelectors: '[]meta.v1.LabelSelector' },
	},
	'rbac.v1.RoleRef': {
		description: 'RoleRef contains information that points to the role being used',
		fields: { apiGroup: 'string', kind: 'string', name: 'string' },
	},
	'rbac.v1.Subject': {
		description:
			'Subject contains a reference to the object or user identities a role binding applies to.',
		fields: { apiGroup: 'string', kind: 'string', name: 'string', namespace: 'string' },
	},
	'rbac.v1.RoleBinding': {
		description:
			'RoleBinding references a role, but does not contain it. It can reference a Role in the same namespace or a ClusterRole in the global namespace.',
		fields: {
			...TYPE_META,
			roleRef: [
				'rbac.v1.RoleRef',
				'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
			],
			subjects: [
				'[]rbac.v1.Subject',
				'Subjects holds references to the objects the role applies to.',
			],
		},
	},
	'rbac.v1.ClusterRoleBinding': {
		description:
			'ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
		fields: {
			...TYPE_META,
			roleRef: [
				'rbac.v1.RoleRef',
				'RoleRef can only reference a ClusterRole in the global namespace.',
			],
			subjects: [
				'[]rbac.v1.Subject',
				'Subjects holds references to the objects the role applies to.',
			],
		},
	},

	// ---- storage.k8s.io/v1 ----
	'storage.v1.StorageClass': {
		description:
			'StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned.',
		fields: {
			...TYPE_META,
			allowVolumeExpansion: 'boolean',
			allowedTopologies: '[]any',
			mountOptions: '[]string',
			parameters: 'map[string]',
			provisioner: 'string',
			reclaimPolicy: 'string',
			volumeBindingMode: 'string',
		},
	},

	// ---- apps/v1 ----
	'apps.v1.Deployment': {
		description: 'Deployment enables declarative updates for Pods and ReplicaSets.',
		fields: {
			...TYPE_META,
			spec: ['apps.v1.DeploymentSpec', 'Specification of the desired behavior of the Deployment.'],
			status: ['any', 'Most recently observed status of the Deployment.'],
		},
	},
	'apps.v1.DeploymentSpec': {
		description: 'DeploymentSpec is the specification of the desired behavior of the Deployment.',
		fields: {
			minReadySeconds: 'int32',
			paused: 'boolean',
			progressDeadlineSeconds: 'int32',
			replicas: ['int32', 'Number of desired pods. Defaults to 1.'],
			revisionHistoryLimit: 'int32',
			selector: [
				'meta.v1.LabelSelector',
				"Label selector for pods. It must match the pod template's labels.",
			],
			strategy: 'apps.v1.DeploymentStrategy',
			template: ['core.v1.PodTemplateSpec', 'Template describes the pods that will be created.'],
		},
	},
	'apps.v1.DeploymentStrategy': {
		description: 'DeploymentStrategy describes how to replace existing pods with new ones.',
		fields: { rollingUpdate: 'apps.v1.RollingUpdateDeployment', type: 'string' },
	},
	'apps.v1.RollingUpdateDeployment': {
		description: 'Spec to control the desired behavior of rolling update.',
		fields: { maxSurge: 'int-or-string', maxUnavailable: 'int-or-string' },
	},
};

/** The root definition of each served resource, by plural name. */
export const ROOTS: Record<string, string> = {
	pods: 'core.v1.Pod',
	persistentvolumeclaims: 'core.v1.PersistentVolumeClaim',
	configmaps: 'core.v1.ConfigMap',
	services: 'core.v1.Service',
	events: 'core.v1.Event',
	namespaces: 'core.v1.Namespace',
	nodes: 'core.v1.Node',
	leases: 'coordination.v1.Lease',
	storageclasses: 'storage.v1.StorageClass',
	deployments: 'apps.v1.Deployment',
	secrets: 'core.v1.Secret',
	serviceaccounts: 'core.v1.ServiceAccount',
	roles: 'rbac.v1.Role',
	clusterroles: 'rbac.v1.ClusterRole',
	rolebindings: 'rbac.v1.RoleBinding',
	clusterrolebindings: 'rbac.v1.ClusterRoleBinding',
};
