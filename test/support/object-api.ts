/**
 * The tests' own admin client: plain JSON reads and writes of any object over HTTP through a
 * kubeconfig, the same on the simulated cluster and the real control plane. It stands where
 * another client (an admin's kubectl, Corral, a stranger) writes beside ctpool, and where a
 * test reads what the cluster holds. Its User-Agent is `test-admin`, so audit logs never
 * count its requests as ctpool's.
 */

import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiUrl, type Query } from '../../source/kube/api-request.js';
import { loadKubeConfig, requestAuth } from '../../source/kube/config.js';
import type { KubeObject as ApiObject, KubeMeta } from '../../source/kube/objects.js';

/** Any Kubernetes object, as JSON, with its name (what the tests read and write). */
export interface KubeObject extends ApiObject {
	metadata: KubeMeta & { name: string };
}

/** An answer: the status code and the body (parsed when it is JSON). */
export interface ApiAnswer {
	status: number;
	headers: http.IncomingHttpHeaders;
	text: string;
	body: unknown;
}

/** Where each resource lives: its API prefix and whether it is namespaced. */
const RESOURCES: Record<string, { prefix: string; namespaced: boolean }> = {
	pods: { prefix: '/api/v1', namespaced: true },
	persistentvolumeclaims: { prefix: '/api/v1', namespaced: true },
	configmaps: { prefix: '/api/v1', namespaced: true },
	services: { prefix: '/api/v1', namespaced: true },
	events: { prefix: '/api/v1', namespaced: true },
	serviceaccounts: { prefix: '/api/v1', namespaced: true },
	secrets: { prefix: '/api/v1', namespaced: true },
	namespaces: { prefix: '/api/v1', namespaced: false },
	nodes: { prefix: '/api/v1', namespaced: false },
	persistentvolumes: { prefix: '/api/v1', namespaced: false },
	leases: { prefix: '/apis/coordination.k8s.io/v1', namespaced: true },
	roles: { prefix: '/apis/rbac.authorization.k8s.io/v1', namespaced: true },
	rolebindings: { prefix: '/apis/rbac.authorization.k8s.io/v1', namespaced: true },
	clusterroles: { prefix: '/apis/rbac.authorization.k8s.io/v1', namespaced: false },
	clusterrolebindings: { prefix: '/apis/rbac.authorization.k8s.io/v1', namespaced: false },
	deployments: { prefix: '/apis/apps/v1', namespaced: true },
	storageclasses: { prefix: '/apis/storage.k8s.io/v1', namespaced: false },
};

/** The API path of a resource (a collection without `name`). */
export function resourcePath(resource: string, namespace?: string, name?: string): string {
	const r = RESOURCES[resource];
	if (!r) throw new Error(`object-api: unknown resource ${resource}`);
	const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
	return `${r.prefix}${ns}/${resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

/** The tests' admin client of one cluster, with a default namespace. */
export class ObjectApi {
	constructor(
		readonly kc: KubeConfig,
		readonly namespace: string,
	) {}

	/** A client of the cluster behind a kubeconfig file. */
	static fromFile(kubeconfig: string, namespace: string): ObjectApi {
		return new ObjectApi(loadKubeConfig({ kubeconfig }), namespace);
	}

	/** One request; never throws for an HTTP status. */
	async request(
		method: string,
		path: string,
		opts: {
			body?: unknown;
			query?: Query;
			contentType?: string;
			headers?: Record<string, string>;
		} = {},
	): Promise<ApiAnswer> {
		const url = apiUrl(this.kc, path, opts.query);
		const auth = await requestAuth(this.kc, 'request');
		const payload =
			opts.body === undefined
				? undefined
				: typeof opts.body === 'string'
					? opts.body
					: JSON.stringify(opts.body);
		const mod = url.protocol === 'https:' ? https : http;
		return new Promise<ApiAnswer>((resolve, reject) => {
			const req = mod.request(url, {
				method,
				agent: auth.agent,
				auth: auth.auth,
				headers: {
					...auth.headers,
					Accept: 'application/json',
					'User-Agent': 'test-admin/1',
					...(payload === undefined
						? {}
						: {
								'Content-Type': opts.contentType ?? 'application/json',
								'Content-Length': Buffer.byteLength(payload),
							}),
					...opts.headers,
				},
				signal: AbortSignal.timeout(30_000),
			});
			req.on('response', (res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let body: unknown = text;
					try {
						body = JSON.parse(text);
					} catch {}
					resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
				});
				res.on('error', reject);
			});
			req.on('error', reject);
			req.end(payload);
		});
	}

	/** A request that must succeed (2xx): its body. */
	private async ok<T>(what: string, answer: Promise<ApiAnswer>): Promise<T> {
		const a = await answer;
		if (a.status < 200 || a.status > 299)
			throw new Error(`${what}: HTTP ${a.status}: ${a.text.slice(0, 500)}`);
		return a.body as T;
	}

	/** The object, or undefined when it does not exist. */
	async get<T extends KubeObject = KubeObject>(
		resource: string,
		name: string,
		namespace = this.namespace,
	): Promise<T | undefined> {
		const a = await this.request('GET', resourcePath(resource, namespace, name));
		if (a.status === 404) return undefined;
		if (a.status !== 200) throw new Error(`get ${resource}/${name}: HTTP ${a.status}: ${a.text}`);
		return a.body as T;
	}

	/** The objects of a kind in the namespace (`namespace: null`: every namespace). */
	async list<T extends KubeObject = KubeObject>(
		resource: string,
		opts: { namespace?: string | null; labelSelector?: string; fieldSelector?: string } = {},
	): Promise<T[]> {
		const ns = opts.namespace === null ? undefined : (opts.namespace ?? this.namespace);
		const list = await this.ok<{ items: T[] }>(
			`list ${resource}`,
			this.request('GET', resourcePath(resource, ns), {
				query: { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector },
			}),
		);
		return list.items;
	}

	/** The objects of a kind in the namespace, by name. */
	async byName<T extends KubeObject = KubeObject>(
		resource: string,
		opts: { labelSelector?: string } = {},
	): Promise<Map<string, T>> {
		return new Map((await this.list<T>(resource, opts)).map((o) => [o.metadata.name, o] as const));
	}

	/** Creates an object (in its own namespace, else the default one). */
	create<T extends KubeObject = KubeObject>(resource: string, obj: KubeObject): Promise<T> {
		const ns = obj.metadata.namespace ?? this.namespace;
		return this.ok(
			`create ${resource}/${obj.metadata.name}`,
			this.request('POST', resourcePath(resource, ns), { body: obj }),
		);
	}

	/** Replaces an object (PUT; a compare-and-swap when it carries a resourceVersion). */
	update<T extends KubeObject = KubeObject>(resource: string, obj: KubeObject): Promise<T> {
		const ns = obj.metadata.namespace ?? this.namespace;
		return this.ok(
			`update ${resource}/${obj.metadata.name}`,
			this.request('PUT', resourcePath(resource, ns, obj.metadata.name), { body: obj }),
		);
	}

	/** A merge patch (or another patch type) of an object, or of a subresource such as status. */
	patch<T extends KubeObject = KubeObject>(
		resource: string,
		name: string,
		patch: unknown,
		opts: { namespace?: string; type?: string; subresource?: string } = {},
	): Promise<T> {
		const path =
			resourcePath(resource, opts.namespace ?? this.namespace, name) +
			(opts.subresource ? `/${opts.subresource}` : '');
		return this.ok(
			`patch ${resource}/${name}`,
			this.request('PATCH', path, {
				body: patch,
				contentType: opts.type ?? 'application/merge-patch+json',
			}),
		);
	}

	/** Creates the object, or replaces it when it exists (kubectl edit, as a test writes it). */
	async put<T extends KubeObject = KubeObject>(resource: string, obj: KubeObject): Promise<T> {
		const existing = await this.get(resource, obj.metadata.name, obj.metadata.namespace);
		if (!existing) return this.create<T>(resource, obj);
		return this.update<T>(resource, {
			...obj,
			metadata: { ...obj.metadata, resourceVersion: existing.metadata.resourceVersion },
		});
	}

	/** Deletes an object; false when it did not exist. */
	async delete(
		resource: string,
		name: string,
		opts: { namespace?: string; gracePeriodSeconds?: number; propagationPolicy?: string } = {},
	): Promise<boolean> {
		const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
		if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
		if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
		const a = await this.request(
			'DELETE',
			resourcePath(resource, opts.namespace ?? this.namespace, name),
			{ body },
		);
		if (a.status === 404) return false;
		if (a.status < 200 || a.status > 299)
			throw new Error(`delete ${resource}/${name}: HTTP ${a.status}: ${a.text}`);
		return true;
	}
}
