/**
 * What kube-controller-manager puts in every namespace: the serviceaccount controller's
 * `default` ServiceAccount (pods are admitted only once it exists) and the root CA
 * publisher's `kube-root-ca.crt` ConfigMap; each is made again when deleted while its
 * namespace lives.
 */

import type { SimEvent, SimStore } from '../store-api.js';

/** Starts the controllers; returns their stop function. */
export function startNamespaceDefaults(store: SimStore, caCertificate: string): () => void {
	let stopped = false;
	const ensure = (ns: string) => {
		if (stopped) return;
		const namespace = store.get('namespaces', undefined, ns);
		if (!namespace || namespace.metadata.deletionTimestamp) return;
		const objects = [
			{
				resource: 'serviceaccounts',
				who: 'system:serviceaccount:kube-system:service-account-controller',
				object: {
					apiVersion: 'v1',
					kind: 'ServiceAccount',
					metadata: { name: 'default', namespace: ns },
				},
			},
			{
				resource: 'configmaps',
				who: 'system:serviceaccount:kube-system:root-ca-cert-publisher',
				object: {
					apiVersion: 'v1',
					kind: 'ConfigMap',
					metadata: {
						name: 'kube-root-ca.crt',
						namespace: ns,
						annotations: {
							'kubernetes.io/description':
								'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
						},
					},
					data: { 'ca.crt': caCertificate },
				},
			},
		];
		for (const { resource, who, object } of objects) {
			if (store.get(resource, ns, object.metadata.name)) continue;
			try {
				store.create(resource, object, { who });
			} catch {
				// A race with another writer, or the namespace is terminating: the next change syncs.
			}
		}
	};
	for (const ns of store.list('namespaces', {})) ensure(ns.metadata.name);
	const off = store.onChange((e: SimEvent) => {
		const { namespace = '', name } = e.object.metadata;
		if (e.resource === 'namespaces' && e.type !== 'DELETED') setImmediate(() => ensure(name));
		else if (
			e.type === 'DELETED' &&
			((e.resource === 'serviceaccounts' && name === 'default') ||
				(e.resource === 'configmaps' && name === 'kube-root-ca.crt'))
		)
			setImmediate(() => ensure(namespace));
	});
	return () => {
		stopped = true;
		off();
	};
}
