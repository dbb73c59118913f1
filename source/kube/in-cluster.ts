/**
 * The in-cluster configuration, as kubectl and client-go use it in a pod with no kubeconfig:
 * the API server from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the service
 * account's token (read again as the kubelet rotates it) and CA, and its namespace as the
 * default namespace.
 */

import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
// From its own module, not client-node's index (which reaches every generated model).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { PoolError } from '../pool/errors.js';
import { registerSecret } from './errors.js';

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The name of the in-cluster context (as client-node names it). */
export const IN_CLUSTER_CONTEXT = 'inClusterContext';

/** Where to look for the in-cluster configuration (tests point it at their own files). */
export interface InClusterSource {
	/** The environment holding KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT. */
	env: Record<string, string | undefined>;
	/** The directory with `token`, `ca.crt` and `namespace` (default SERVICE_ACCOUNT_DIR). */
	serviceAccountDir?: string;
}

/** An in-cluster configuration and the namespace of its service account. */
export interface InClusterConfig {
	config: KubeConfig;
	/** The namespace file's content, or undefined when there is none. */
	namespace: string | undefined;
}

/** Whether the environment says this runs in a pod (KUBERNETES_SERVICE_HOST is set). */
export function inClusterEnv(env: Record<string, string | undefined>): boolean {
	return Boolean(env.KUBERNETES_SERVICE_HOST);
}

/**
 * The in-cluster configuration, or a PoolError('usage') naming what is missing (the token
 * file, the port). Call it only when inClusterEnv() holds.
 */
export function loadInClusterConfig(source: InClusterSource): InClusterConfig {
	const dir = source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
	const host = source.env.KUBERNETES_SERVICE_HOST ?? '';
	const port = source.env.KUBERNETES_SERVICE_PORT ?? '';
	if (!/^\d{1,5}$/.test(port))
		throw new PoolError(
			'usage',
			'KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not a port: in a pod the kubelet sets both; elsewhere unset KUBERNETES_SERVICE_HOST or pass --kubeconfig',
		);
	const tokenFile = join(dir, 'token');
	let token: string;
	try {
		token = readFileSync(tokenFile, 'utf8').trim();
	} catch {
		throw new PoolError(
			'usage',
			`in-cluster configuration: no service account token at ${tokenFile}; mount one (automountServiceAccountToken) or pass --kubeconfig`,
		);
	}
	registerSecret(token);
	const caFile = join(dir, 'ca.crt');
	const namespaceFile = join(dir, 'namespace');
	const namespace = existsSync(namespaceFile)
		? readFileSync(namespaceFile, 'utf8').trim() || undefined
		: undefined;
	const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
	const config = new KubeConfig();
	config.loadFromOptions({
		clusters: [
			{
				name: 'inCluster',
				server,
				skipTLSVerify: false,
				...(existsSync(caFile) ? { caFile } : {}),
			},
		],
		// client-node reads the token file again every minute, as the kubelet rotates it
		users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
		contexts: [
			{
				name: IN_CLUSTER_CONTEXT,
				cluster: 'inCluster',
				user: 'inClusterUser',
				...(namespace ? { namespace } : {}),
			},
		],
		currentContext: IN_CLUSTER_CONTEXT,
	});
	return { config, namespace };
}
