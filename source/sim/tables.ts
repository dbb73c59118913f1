/**
 * Server-side printing: the meta.k8s.io Table kubectl asks for, with the column sets and
 * cell rules of Kubernetes 1.32's printers.
 */

import { formatAge } from '../text/age.js';
import { deploymentCells } from './deployments.js';
import type { SimObject } from './store-api.js';

/** One column of a Table. */
export interface TableColumn {
	name: string;
	type: string;
	format: string;
	description: string;
	priority: number;
}

/** A row's cells for one object, given the current time (ms). */
export type RowPrinter = (obj: SimObject, now: number) => unknown[];

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

function arr(v: unknown): unknown[] {
	return Array.isArray(v) ? v : [];
}

function str(v: unknown): string {
	return typeof v === 'string' ? v : '';
}

function col(
	name: string,
	type = 'string',
	priority = 0,
	description = '',
	format = '',
): TableColumn {
	return { name, type, format, description, priority };
}

const NAME_COL = col(
	'Name',
	'string',
	0,
	'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
	'name',
);
const AGE_COL = col(
	'Age',
	'string',
	0,
	'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
);

/** A duration the way kubectl prints ages: the one rule ctpool's CLI and console use too. */
export const humanDuration = formatAge;

/** The age cell of a timestamp: `<unknown>` when absent. */
export function since(ts: unknown, now: number): string {
	if (typeof ts !== 'string' || ts === '') return '<unknown>';
	const t = Date.parse(ts);
	if (Number.isNaN(t)) return '<unknown>';
	return humanDuration(now - t);
}

// ---- pods ----------------------------------------------------------------------------

/** The pod READY, STATUS and RESTARTS cells as kubectl 1.32 computes them. */
export function podCells(
	pod: SimObject,
	now: number,
): { ready: string; status: string; restarts: string } {
	const spec = rec(pod.spec);
	const status = rec(pod.status);
	const total = arr(spec.containers).length;
	let readyCount = 0;
	let restarts = 0;
	let lastRestart = 0;
	const phase = str(status.phase);
	let reason = phase;
	if (str(status.reason)) reason = str(status.reason);
	for (const c of arr(status.conditions)) {
		const cr = rec(c);
		if (cr.type === 'PodScheduled' && cr.reason === 'SchedulingGated') reason = 'SchedulingGated';
	}
	let initializing = false;
	const initStatuses = arr(status.initContainerStatuses);
	const initCount = arr(spec.initContainers).length;
	initStatuses.forEach((s, i) => {
		if (initializing) return;
		const cs = rec(s);
		const state = rec(cs.state);
		restarts += Number(cs.restartCount ?? 0);
		const term = rec(state.terminated);
		const wait = rec(state.waiting);
		if (state.terminated && Number(term.exitCode ?? 0) === 0) return;
		if (state.terminated) {
			reason = str(term.reason)
				? `Init:${str(term.reason)}`
				: term.signal
					? `Init:Signal:${term.signal}`
					: `Init:ExitCode:${term.exitCode}`;
		} else if (state.waiting && str(wait.reason) && str(wait.reason) !== 'PodInitializing') {
			reason = `Init:${str(wait.reason)}`;
		} else {
			reason = `Init:${i}/${initCount}`;
		}
		initializing = true;
	});
	const initializedTrue = arr(status.conditions).some(
		(c) => rec(c).type === 'Initialized' && rec(c).status === 'True',
	);
	if (!initializing || initializedTrue) {
		let hasRunning = false;
		const statuses = arr(status.containerStatuses);
		for (let i = statuses.length - 1; i >= 0; i--) {
			const cs = rec(statuses[i]);
			const state = rec(cs.state);
			restarts += Number(cs.restartCount ?? 0);
			const lastTerm = rec(rec(cs.lastState).terminated);
			if (str(lastTerm.finishedAt)) {
				const t = Date.parse(str(lastTerm.finishedAt));
				if (!Number.isNaN(t) && t > lastRestart) lastRestart = t;
			}
			const wait = rec(state.waiting);
			const term = rec(state.terminated);
			if (state.waiting && str(wait.reason)) reason = str(wait.reason);
			else if (state.terminated && str(term.reason)) reason = str(term.reason);
			else if (state.terminated) {
				reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
			} else if (cs.ready === true && state.running) {
				hasRunning = true;
				readyCount++;
			}
		}
		if (reason === 'Completed' && hasRunning) {
			const ready = arr(status.conditions).some(
				(c) => rec(c).type === 'Ready' && rec(c).status === 'True',
			);
			reason = ready ? 'Running' : 'NotReady';
		}
	}
	if (pod.metadata.deletionTimestamp && str(status.reason) === 'NodeLost') reason = 'Unknown';
	else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') {
		reason = 'Terminating';
	}
	const restartsStr =
		restarts !== 0 && lastRestart > 0
			? `${restarts} (${humanDuration(now - lastRestart)} ago)`
			: String(restarts);
	return { ready: `${readyCount}/${total}`, status: reason, restarts: restartsStr };
}

function podIP(status: Rec): string {
	const ips = arr(status.podIPs);
	const first = str(rec(ips[0]).ip) || str(status.podIP);
	return first || '<none>';
}

const POD_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Ready', 'string', 0, 'The aggregate readiness state of this pod for accepting traffic.'),
	col('Status', 'string', 0, 'The aggregate status of the containers in this pod.'),
	col(
		'Restarts',
		'string',
		0,
		'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
	),
	AGE_COL,
	col(
		'IP',
		'string',
		1,
		'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
	),
	col(
		'Node',
		'string',
		1,
		'NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements.',
	),
	col(
		'Nominated Node',
		'string',
		1,
		'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
	),
	col(
		'Readiness Gates',
		'string',
		1,
		'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
	),
];

function printPod(pod: SimObject, now: number): unknown[] {
	const spec = rec(pod.spec);
	const status = rec(pod.status);
	const c = podCells(pod, now);
	const gates = arr(spec.readinessGates);
	let gatesCell = '<none>';
	if (gates.length > 0) {
		const conds = arr(status.conditions).map(rec);
		const ok = gates.filter((g) =>
			conds.some((cd) => cd.type === rec(g).conditionType && cd.status === 'True'),
		).length;
		gatesCell = `${ok}/${gates.length}`;
	}
	return [
		pod.metadata.name,
		c.ready,
		c.status,
		c.restarts,
		since(pod.metadata.creationTimestamp, now),
		podIP(status),
		str(spec.nodeName) || '<none>',
		str(status.nominatedNodeName) || '<none>',
		gatesCell,
	];
}

// ---- other kinds ---------------------------------------------------------------------

const ACCESS_MODES: Record<string, string> = {
	ReadWriteOnce: 'RWO',
	ReadOnlyMany: 'ROX',
	ReadWriteMany: 'RWX',
	ReadWriteOncePod: 'RWOP',
};

function accessModes(modes: unknown[]): string {
	const wanted = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
	return wanted
		.filter((m) => modes.includes(m))
		.map((m) => ACCESS_MODES[m])
		.join(',');
}

const PVC_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Status', 'string', 0, 'Phase represents the current phase of PersistentVolumeClaim.'),
	col(
		'Volume',
		'string',
		0,
		'volumeName is the binding reference to the PersistentVolume backing this claim.',
	),
	col(
		'Capacity',
		'string',
		0,
		'capacity represents the actual resources of the underlying volume.',
	),
	col(
		'Access Modes',
		'string',
		0,
		'accessModes contains the desired access modes the volume should have. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1',
	),
	col(
		'StorageClass',
		'string',
		0,
		'storageClassName is the name of the StorageClass required by the claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#class-1',
	),
	col(
		'VolumeAttributesClass',
		'string',
		0,
		'volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.',
	),
	AGE_COL,
	col(
		'VolumeMode',
		'string',
		1,
		'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
	),
];

function printPvc(pvc: SimObject, now: number): unknown[] {
	const spec = rec(pvc.spec);
	const status = rec(pvc.status);
	const phase = pvc.metadata.deletionTimestamp ? 'Terminating' : str(status.phase);
	let capacity = '';
	let modes = '';
	if (str(spec.volumeName)) {
		modes = accessModes(arr(status.accessModes));
		capacity = str(rec(status.capacity).storage);
	}
	const sc =
		str(spec.storageClassName) ||
		str(pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class']);
	return [
		pvc.metadata.name,
		phase,
		str(spec.volumeName),
		capacity,
		modes,
		sc,
		str(spec.volumeAttributesClassName) || '<unset>',
		since(pvc.metadata.creationTimestamp, now),
		str(spec.volumeMode) || '<unset>',
	];
}

const CM_COLUMNS: TableColumn[] = [
	NAME_COL,
	col(
		'Data',
		'integer',
		0,
		"Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
	),
	AGE_COL,
];

function printConfigMap(cm: SimObject, now: number): unknown[] {
	const n = Object.keys(rec(cm.data)).length + Object.keys(rec(cm.binaryData)).length;
	return [cm.metadata.name, n, since(cm.metadata.creationTimestamp, now)];
}

const SVC_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Type', 'string', 0, 'type determines how the Service is exposed.'),
	col(
		'Cluster-IP',
		'string',
		0,
		'clusterIP is the IP address of the service and is usually assigned randomly.',
	),
	col(
		'External-IP',
		'string',
		0,
		'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
	),
	col(
		'Port(s)',
		'string',
		0,
		'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
	),
	AGE_COL,
	col(
		'Selector',
		'string',
		1,
		'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
	),
];

function printService(svc: SimObject, now: number): unknown[] {
	const spec = rec(svc.spec);
	const type = str(spec.type) || 'ClusterIP';
	let external = '<none>';
	const extIPs = arr(spec.externalIPs).map(str);
	if (type === 'LoadBalancer') {
		const ingress = arr(rec(rec(svc.status).loadBalancer).ingress).map(
			(i) => str(rec(i).ip) || str(rec(i).hostname),
		);
		const all = [...ingress, ...extIPs].filter(Boolean);
		external = all.length > 0 ? all.join(',') : '<pending>';
	} else if (type === 'ExternalName') external = str(spec.externalName);
	else if (extIPs.length > 0) external = extIPs.join(',');
	const ports = arr(spec.ports).map((p) => {
		const pr = rec(p);
		const node = pr.nodePort ? `:${pr.nodePort}` : '';
		return `${pr.port}${node}/${str(pr.protocol) || 'TCP'}`;
	});
	const sel = Object.entries(rec(spec.selector))
		.sort(([a], [b]) => (a < b ? -1 : 1))
		.map(([k, v]) => `${k}=${v}`);
	return [
		svc.metadata.name,
		type,
		str(spec.clusterIP) || '<none>',
		external,
		ports.length > 0 ? ports.join(',') : '<none>',
		since(svc.metadata.creationTimestamp, now),
		sel.length > 0 ? sel.join(',') : '<none>',
	];
}

const LEASE_COLUMNS: TableColumn[] = [
	NAME_COL,
	col(
		'Holder',
		'string',
		0,
		'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
	),
	AGE_COL,
];

function printLease(lease: SimObject, now: number): unknown[] {
	return [
		lease.metadata.name,
		str(rec(lease.spec).holderIdentity),
		since(lease.metadata.creationTimestamp, now),
	];
}

const NS_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Status', 'string', 0, 'The status of the namespace'),
	AGE_COL,
];

function printNamespace(ns: SimObject, now: number): unknown[] {
	return [ns.metadata.name, str(rec(ns.status).phase), since(ns.metadata.creationTimestamp, now)];
}

const NODE_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Status', 'string', 0, 'The status of the node'),
	col('Roles', 'string', 0, 'The roles of the node'),
	AGE_COL,
	col('Version', 'string', 0, 'Kubelet Version reported by the node.'),
	col(
		'Internal-IP',
		'string',
		1,
		"List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
	),
	col(
		'External-IP',
		'string',
		1,
		'List of addresses reachable to the node. Queried from cloud provider, if available.',
	),
	col(
		'OS-Image',
		'string',
		1,
		'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
	),
	col(
		'Kernel-Version',
		'string',
		1,
		"Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
	),
	col(
		'Container-Runtime',
		'string',
		1,
		'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
	),
];

function printNode(node: SimObject, now: number): unknown[] {
	const status = rec(node.status);
	const ready = arr(status.conditions)
		.map(rec)
		.find((c) => c.type === 'Ready');
	let st = ready
		? ready.status === 'True'
			? 'Ready'
			: ready.status === 'False'
				? 'NotReady'
				: 'Unknown'
		: 'Unknown';
	if (rec(node.spec).unschedulable === true) st += ',SchedulingDisabled';
	const roles = new Set<string>();
	for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
		if (k.startsWith('node-role.kubernetes.io/')) {
			const r = k.slice('node-role.kubernetes.io/'.length);
			if (r) roles.add(r);
		} else if (k === 'kubernetes.io/role' && v) roles.add(v);
	}
	const addr = (t: string) =>
		str(
			arr(status.addresses)
				.map(rec)
				.find((a) => a.type === t)?.address,
		) || '<none>';
	const info = rec(status.nodeInfo);
	return [
		node.metadata.name,
		st,
		roles.size > 0 ? [...roles].sort().join(',') : '<none>',
		since(node.metadata.creationTimestamp, now),
		str(info.kubeletVersion),
		addr('InternalIP'),
		addr('ExternalIP'),
		str(info.osImage) || '<unknown>',
		str(info.kernelVersion) || '<unknown>',
		str(info.containerRuntimeVersion) || '<unknown>',
	];
}

const EVENT_COLUMNS: TableColumn[] = [
	col(
		'Last Seen',
		'string',
		0,
		'The time at which the most recent occurrence of this event was recorded.',
	),
	col(
		'Type',
		'string',
		0,
		'Type of this event (Normal, Warning), new types could be added in the future',
	),
	col(
		'Reason',
		'string',
		0,
		"This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
	),
	col('Object', 'string', 0, 'The object that this event is about.'),
	col(
		'Subobject',
		'string',
		1,
		'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
	),
	col(
		'Source',
		'string',
		1,
		'The component reporting this event. Should be a short machine understandable string.',
	),
	col('Message', 'string', 0, 'A human-readable description of the status of this operation.'),
	col(
		'First Seen',
		'string',
		1,
		'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
	),
	col('Count', 'string', 1, 'The number of times this event has occurred.'),
	col('Name', 'string', 1, NAME_COL.description, 'name'),
];

function printEvent(ev: SimObject, now: number): unknown[] {
	let first = since(ev.firstTimestamp, now);
	if (!str(ev.firstTimestamp)) first = since(ev.eventTime, now);
	let last = str(ev.lastTimestamp) ? since(ev.lastTimestamp, now) : first;
	let count = Number(ev.count ?? 0);
	const series = rec(ev.series);
	if (ev.series) {
		last = since(series.lastObservedTime, now);
		count = Number(series.count ?? 0);
	} else if (count === 0) count = 1;
	const io = rec(ev.involvedObject);
	const target = str(io.name)
		? `${str(io.kind).toLowerCase()}/${str(io.name)}`
		: str(io.kind).toLowerCase();
	const src = rec(ev.source);
	const component = str(src.component) || str(ev.reportingComponent);
	const host = str(src.host) || str(ev.reportingInstance);
	const source = host ? `${component}, ${host}` : component;
	return [
		last,
		str(ev.type),
		str(ev.reason),
		target,
		str(io.fieldPath),
		source,
		str(ev.message).trim(),
		first,
		count,
		ev.metadata.name,
	];
}

const SC_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Provisioner', 'string', 0, 'provisioner indicates the type of the provisioner.'),
	col(
		'ReclaimPolicy',
		'string',
		0,
		'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
	),
	col(
		'VolumeBindingMode',
		'string',
		0,
		'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
	),
	col(
		'AllowVolumeExpansion',
		'string',
		0,
		'allowVolumeExpansion shows whether the storage class allow volume expand.',
	),
	AGE_COL,
];

function printStorageClass(sc: SimObject, now: number): unknown[] {
	const ann = sc.metadata.annotations ?? {};
	const isDefault =
		ann['storageclass.kubernetes.io/is-default-class'] === 'true' ||
		ann['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
	return [
		isDefault ? `${sc.metadata.name} (default)` : sc.metadata.name,
		str(sc.provisioner),
		str(sc.reclaimPolicy) || 'Delete',
		str(sc.volumeBindingMode) || 'Immediate',
		String(sc.allowVolumeExpansion === true),
		since(sc.metadata.creationTimestamp, now),
	];
}

const DEPLOY_COLUMNS: TableColumn[] = [
	NAME_COL,
	col('Ready', 'string', 0, 'Number of the pod with ready state'),
	col(
		'Up-to-date',
		'string',
		0,
		'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
	),
	col(
		'Available',
		'string',
		0,
		'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
	),
	AGE_COL,
	col('Containers', 'string', 1, 'Names of each container in the template.'),
	col('Images', 'string', 1, 'Images referenced by each container in the template.'),
	col(
		'Selector',
		'string',
		1,
		'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
	),
];

function printDeployment(d: SimObject, now: number): unknown[] {
	return deploymentCells(d, since(d.metadata.creationTimestamp, now));
}

function printDefault(obj: SimObject, now: number): unknown[] {
	return [obj.metadata.name, since(obj.metadata.creationTimestamp, now)];
}

const SECRET_COLUMNS: TableColumn[] = [
	NAME_COL,
	col(
		'Type',
		'string',
		0,
		'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
	),
	col(
		'Data',
		'string',
		0,
		"Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
	),
	AGE_COL,
];

function printSecret(secret: SimObject, now: number): unknown[] {
	return [
		secret.metadata.name,
		str(secret.type),
		Object.keys(rec(secret.data)).length,
		since(secret.metadata.creationTimestamp, now),
	];
}

const SA_COLUMNS: TableColumn[] = [
	NAME_COL,
	col(
		'Secrets',
		'string',
		0,
		'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
	),
	AGE_COL,
];

function printServiceAccount(sa: SimObject, now: number): unknown[] {
	return [sa.metadata.name, arr(sa.secrets).length, since(sa.metadata.creationTimestamp, now)];
}

/** The default table convertor's columns (roles and cluster roles have no printer of their own). */
const CREATED_AT_COLUMNS: TableColumn[] = [
	NAME_COL,
	col(
		'Created At',
		'date',
		0,
		'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
	),
];

function printCreatedAt(obj: SimObject): unknown[] {
	return [obj.metadata.name, str(obj.metadata.creationTimestamp)];
}

function bindingColumns(what: string): TableColumn[] {
	return [
		NAME_COL,
		col(
			'Role',
			'string',
			0,
			'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
		),
		AGE_COL,
		col('Users', 'string', 1, `Users in the ${what}`),
		col('Groups', 'string', 1, `Groups in the ${what}`),
		col('ServiceAccounts', 'string', 1, `ServiceAccounts in the ${what}`),
	];
}

function printBinding(binding: SimObject, now: number): unknown[] {
	const ref = rec(binding.roleRef);
	const users: string[] = [];
	const groups: string[] = [];
	const sas: string[] = [];
	for (const s of arr(binding.subjects).map(rec)) {
		if (s.kind === 'User') users.push(str(s.name));
		else if (s.kind === 'Group') groups.push(str(s.name));
		else if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
	}
	return [
		binding.metadata.name,
		`${str(ref.kind)}/${str(ref.name)}`,
		since(binding.metadata.creationTimestamp, now),
		users.join(', '),
		groups.join(', '),
		sas.join(', '),
	];
}

const PRINTERS: Record<string, { columns: TableColumn[]; row: RowPrinter }> = {
	pods: { columns: POD_COLUMNS, row: printPod },
	persistentvolumeclaims: { columns: PVC_COLUMNS, row: printPvc },
	configmaps: { columns: CM_COLUMNS, row: printConfigMap },
	services: { columns: SVC_COLUMNS, row: printService },
	leases: { columns: LEASE_COLUMNS, row: printLease },
	namespaces: { columns: NS_COLUMNS, row: printNamespace },
	nodes: { columns: NODE_COLUMNS, row: printNode },
	events: { columns: EVENT_COLUMNS, row: printEvent },
	storageclasses: { columns: SC_COLUMNS, row: printStorageClass },
	deployments: { columns: DEPLOY_COLUMNS, row: printDeployment },
	secrets: { columns: SECRET_COLUMNS, row: printSecret },
	serviceaccounts: { columns: SA_COLUMNS, row: printServiceAccount },
	roles: { columns: CREATED_AT_COLUMNS, row: printCreatedAt },
	clusterroles: { columns: CREATED_AT_COLUMNS, row: printCreatedAt },
	rolebindings: { columns: bindingColumns('roleBinding'), row: printBinding },
	clusterrolebindings: { columns: bindingColumns('clusterRoleBinding'), row: printBinding },
};

/** The column definitions and row printer of a resource (Name and Age for unknown ones). */
export function printerFor(resource: string): { columns: TableColumn[]; row: RowPrinter } {
	return PRINTERS[resource] ?? { columns: [NAME_COL, AGE_COL], row: printDefault };
}

/** How a row carries its object: includeObject=None|Metadata|Object (default Metadata). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The JSON of one table row for an object. */
export function rowJson(
	resource: string,
	obj: SimObject,
	json: string,
	include: IncludeObject,
	now: number,
): string {
	const cells = JSON.stringify(printerFor(resource).row(obj, now));
	let conditions = '';
	const phase = str(rec(obj.status).phase);
	if (resource === 'pods' && (phase === 'Succeeded' || phase === 'Failed')) {
		conditions = `,"conditions":[{"type":"Completed","status":"True","reason":"${phase}","message":"The pod has completed ${phase === 'Succeeded' ? 'successfully' : 'with an error'}."}]`;
	}
	let object = '';
	if (include === 'Object') object = `,"object":${json}`;
	else if (include === 'Metadata') {
		object = `,"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(obj.metadata)}}`;
	}
	return `{"cells":${cells}${conditions}${object}}`;
}

/** The JSON of a whole Table. `columns` false writes `"columnDefinitions":null` (watch events after the first). */
export function tableJson(
	resource: string,
	apiVersion: string,
	listMeta: Record<string, unknown>,
	rows: string[],
	columns: boolean,
): string {
	const defs = columns ? JSON.stringify(printerFor(resource).columns) : 'null';
	return `{"kind":"Table","apiVersion":"${apiVersion}","metadata":${JSON.stringify(listMeta)},"columnDefinitions":${defs},"rows":[${rows.join(',')}]}`;
}
