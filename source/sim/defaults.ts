/** Defaulting on create, as the API server's defaulters and admission plugins fill objects in. */

import { defaultAccessObject } from './access-objects.js';
import { defaultDeployment } from './deployments.js';
import type { SimObject } from './store-api.js';

/** What defaulting needs from the cluster. */
export interface DefaultsContext {
	/** Grace period a pod gets when its spec names none (s). */
	defaultGraceSeconds: number;
	/** The name of the default StorageClass, if any. */
	defaultStorageClass(): string | undefined;
	/** A fresh cluster IP for a Service. */
	allocateClusterIP(): string;
}

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
	return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {};
}

function fill(target: Rec, key: string, value: unknown): void {
	if (target[key] === undefined) target[key] = value;
}

function pullPolicy(image: unknown): string {
	if (typeof image !== 'string') return 'IfNotPresent';
	const afterSlash = image.slice(image.lastIndexOf('/') + 1);
	if (image.includes('@')) return 'IfNotPresent';
	const tag = afterSlash.includes(':') ? afterSlash.slice(afterSlash.indexOf(':') + 1) : '';
	return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** The QoS class of a pod spec: Guaranteed, Burstable or BestEffort. */
export function qosClass(spec: unknown): string {
	const containers = (rec(spec).containers as unknown[] | undefined) ?? [];
	let any = false;
	let guaranteed = containers.length > 0;
	for (const c of containers) {
		const res = rec(rec(c).resources);
		const req = rec(res.requests);
		const lim = rec(res.limits);
		if (Object.keys(req).length > 0 || Object.keys(lim).length > 0) any = true;
		for (const r of ['cpu', 'memory']) {
			const l = lim[r];
			const q = req[r] ?? l;
			if (l === undefined || q !== l) guaranteed = false;
		}
	}
	if (!any) return 'BestEffort';
	return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** Where the ServiceAccount admission plugin mounts a pod's API credentials. */
export const SERVICE_ACCOUNT_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A random suffix as the API server makes them (k8s.io/apimachinery's util/rand alphabet). */
function suffix(n: number): string {
	const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
	let out = '';
	for (let i = 0; i < n; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
	return out;
}

/**
 * The ServiceAccount admission plugin: the pod runs as `default` unless it names an account,
 * and, unless it opts out (automountServiceAccountToken: false), gets the projected
 * `kube-api-access-xxxxx` volume (token, cluster CA, namespace) mounted read-only in every
 * container that has nothing at that path.
 */
function admitServiceAccount(spec: Rec): void {
	fill(spec, 'serviceAccountName', 'default');
	fill(spec, 'serviceAccount', spec.serviceAccountName);
	if (spec.automountServiceAccountToken === false) return;
	const volumes = Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : [];
	if (volumes.some((v) => String(rec(v).name ?? '').startsWith('kube-api-access-'))) return;
	const name = `kube-api-access-${suffix(5)}`;
	volumes.push({
		name,
		projected: {
			defaultMode: 420,
			sources: [
				{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
				{ configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
				{
					downwardAPI: {
						items: [
							{
								path: 'namespace',
								fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
							},
						],
					},
				},
			],
		},
	});
	spec.volumes = volumes;
	for (const list of [spec.initContainers, spec.containers]) {
		for (const c of Array.isArray(list) ? list : []) {
			const cr = rec(c);
			const mounts = Array.isArray(cr.volumeMounts) ? (cr.volumeMounts as unknown[]) : [];
			if (mounts.some((m) => rec(m).mountPath === SERVICE_ACCOUNT_MOUNT)) continue;
			mounts.push({ name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT });
			cr.volumeMounts = mounts;
		}
	}
}

function defaultPod(obj: SimObject, ctx: DefaultsContext): void {
	const spec = rec(obj.spec);
	obj.spec = spec;
	admitServiceAccount(spec);
	fill(spec, 'restartPolicy', 'Always');
	fill(spec, 'terminationGracePeriodSeconds', ctx.defaultGraceSeconds);
	fill(spec, 'dnsPolicy', 'ClusterFirst');
	fill(spec, 'securityContext', {});
	fill(spec, 'schedulerName', 'default-scheduler');
	fill(spec, 'enableServiceLinks', true);
	fill(spec, 'priority', 0);
	fill(spec, 'preemptionPolicy', 'PreemptLowerPriority');
	fill(spec, 'tolerations', [
		{
			key: 'node.kubernetes.io/not-ready',
			operator: 'Exists',
			effect: 'NoExecute',
			tolerationSeconds: 300,
		},
		{
			key: 'node.kubernetes.io/unreachable',
			operator: 'Exists',
			effect: 'NoExecute',
			tolerationSeconds: 300,
		},
	]);
	for (const c of (spec.containers as unknown[] | undefined) ?? []) {
		const cr = rec(c);
		fill(cr, 'imagePullPolicy', pullPolicy(cr.image));
		fill(cr, 'resources', {});
		fill(cr, 'terminationMessagePath', '/dev/termination-log');
		fill(cr, 'terminationMessagePolicy', 'File');
		const ports = cr.ports as unknown[] | undefined;
		for (const p of ports ?? []) fill(rec(p), 'protocol', 'TCP');
	}
	const status = rec(obj.status);
	obj.status = status;
	fill(status, 'phase', 'Pending');
	fill(status, 'qosClass', qosClass(spec));
}

function defaultPvc(obj: SimObject, ctx: DefaultsContext): void {
	const spec = rec(obj.spec);
	obj.spec = spec;
	fill(spec, 'volumeMode', 'Filesystem');
	if (spec.storageClassName === undefined) {
		const sc = ctx.defaultStorageClass();
		if (sc) spec.storageClassName = sc;
	}
	const status = rec(obj.status);
	obj.status = status;
	fill(status, 'phase', 'Pending');
}

function defaultService(obj: SimObject, ctx: DefaultsContext): void {
	const spec = rec(obj.spec);
	obj.spec = spec;
	fill(spec, 'type', 'ClusterIP');
	fill(spec, 'sessionAffinity', 'None');
	if (spec.type !== 'ExternalName') {
		fill(spec, 'clusterIP', ctx.allocateClusterIP());
		fill(spec, 'clusterIPs', [spec.clusterIP]);
		fill(spec, 'ipFamilies', ['IPv4']);
		fill(spec, 'ipFamilyPolicy', 'SingleStack');
		fill(spec, 'internalTrafficPolicy', 'Cluster');
	}
	for (const p of (spec.ports as unknown[] | undefined) ?? []) {
		const pr = rec(p);
		fill(pr, 'protocol', 'TCP');
		fill(pr, 'targetPort', pr.port);
	}
	fill(obj, 'status', { loadBalancer: {} });
}

function defaultNamespace(obj: SimObject): void {
	obj.metadata.labels = {
		...(obj.metadata.labels ?? {}),
		'kubernetes.io/metadata.name': obj.metadata.name,
	};
	const spec = rec(obj.spec);
	obj.spec = spec;
	fill(spec, 'finalizers', ['kubernetes']);
	const status = rec(obj.status);
	obj.status = status;
	fill(status, 'phase', 'Active');
}

/** Fills in what the API server defaults on create. Only sets fields that are absent. */
export function applyDefaults(resource: string, obj: SimObject, ctx: DefaultsContext): void {
	switch (resource) {
		case 'pods':
			defaultPod(obj, ctx);
			break;
		case 'persistentvolumeclaims':
			defaultPvc(obj, ctx);
			break;
		case 'services':
			defaultService(obj, ctx);
			break;
		case 'namespaces':
			defaultNamespace(obj);
			break;
		case 'events':
			// core/v1 Event serialises these even when empty.
			fill(obj as Rec, 'eventTime', null);
			fill(obj as Rec, 'reportingComponent', '');
			fill(obj as Rec, 'reportingInstance', '');
			break;
		case 'deployments':
			defaultDeployment(obj);
			break;
		default:
			defaultAccessObject(resource, obj);
	}
}

/**
 * The status a create through the API starts with: the server ignores a client's status
 * for resources with a status subresource.
 */
export function initialStatus(resource: string): Rec | undefined {
	switch (resource) {
		case 'pods':
			return { phase: 'Pending' };
		case 'persistentvolumeclaims':
			return { phase: 'Pending' };
		case 'namespaces':
			return { phase: 'Active' };
		case 'services':
			return { loadBalancer: {} };
		case 'deployments':
			return {};
		default:
			return undefined;
	}
}
