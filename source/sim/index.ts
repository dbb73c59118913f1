/** The embedded simulated Kubernetes cluster: start it, point a kubeconfig at it, close it. */

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AuditLog } from './audit.js';
import { Authenticator } from './authn.js';
import { defaultClusterConfig, type SimClusterConfig } from './config.js';
import { ContainerLogs } from './container-logs.js';
import { type SimControllers, startControllers } from './controllers/index.js';
import { startNamespaceDefaults } from './controllers/namespace-defaults.js';
import { startTokenController } from './controllers/token-controller.js';
import { FaultSwitch } from './faults.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './rbac-bootstrap.js';
import { SimServer } from './server.js';
import { Store } from './store.js';

export type { AuditLog, AuditMutation, AuditRequest } from './audit.js';
export { ADMIN_USER } from './authn.js';
export type { SimClusterConfig, SimNode, SimStorageClass } from './config.js';
export { defaultClusterConfig } from './config.js';
export type { SimControllers } from './controllers/index.js';
export type { FaultCounts, FaultSettings, FaultSwitch } from './faults.js';
export { parseFaultSpec } from './faults.js';
export { DEFAULT_BOOKMARK_MS } from './server.js';
export type { Store } from './store.js';
export { DEFAULT_COMPACTION_MS } from './store.js';

/** The name of the cluster, user and context the kubeconfig holds. */
export const SIM_CONTEXT = 'ctpool-sim';
/** The namespace the kubeconfig names unless told otherwise: Corral's, corral-vms. */
export const SIM_NAMESPACE = 'corral-vms';

/** Options of startSimCluster. */
export interface StartSimOptions {
	/** Cluster settings over the defaults. */
	config?: Partial<SimClusterConfig>;
	/** Port on 127.0.0.1 (0 or absent = a random free port). */
	port?: number;
	/** Where to write the kubeconfig (default: a file in a new temp directory). */
	kubeconfigPath?: string;
	/** The bearer token (default: a random one). */
	token?: string;
	/**
	 * The namespace the kubeconfig's context names, created with the cluster (default
	 * corral-vms, Corral's namespace).
	 */
	namespace?: string;
	/** Namespaces to create beside `default`, `kube-system` and `namespace`. */
	namespaces?: string[];
	/** How often a watch that allows bookmarks gets one (ms, default 60,000 as a real server). */
	bookmarkIntervalMs?: number;
	/** How many events the watch history keeps at most (default 10,000). */
	historySize?: number;
	/**
	 * How long the watch history keeps an event (ms, default 5 minutes, as a real server
	 * compacts etcd); a watch from an older resourceVersion gets 410 Expired.
	 */
	compactionMs?: number;
}

/** A running simulated cluster. */
export interface SimCluster {
	/** `http://127.0.0.1:PORT` (plain HTTP; the bearer token is still required). */
	url: string;
	/**
	 * `https://127.0.0.1:PORT`, the same port over TLS with a throwaway self-signed
	 * certificate: the kubeconfig names this one, because kubectl sends credentials over TLS only.
	 */
	httpsUrl: string;
	port: number;
	/** The bearer token every request must carry. */
	token: string;
	/** The kubeconfig file (mode 0600) pointing at the cluster. */
	kubeconfigPath: string;
	/** The kubeconfig's cluster, user and context name. */
	contextName: string;
	/** The namespace the kubeconfig's context names. */
	namespace: string;
	/** The object store behind the API. */
	store: Store;
	/** The running controllers (scheduler, kubelet, provisioner, events). */
	controllers: SimControllers;
	/** The fault switch. */
	faults: FaultSwitch;
	/** The audit log of mutations and requests. */
	audit: AuditLog;
	/** The cluster settings in force (deny may be changed while running). */
	config: SimClusterConfig;
	/** How many watch streams are open. */
	openWatches(): number;
	/**
	 * Writes a kubeconfig (mode 0600) that acts as the ServiceAccount `namespace/name`, with
	 * the same server and TLS settings as the admin's, creating the account if it is missing
	 * (its namespace must exist). The token lasts `expirationSeconds` (default one year).
	 * Resolves with the file's path (default: `kubeconfig-NAMESPACE-NAME` beside the admin's).
	 */
	serviceAccountKubeconfig(
		namespace: string,
		name: string,
		opts?: { path?: string; expirationSeconds?: number },
	): Promise<string>;
	/** Ends every watch and connection, stops the controllers, removes a temp kubeconfig. */
	close(): Promise<void>;
}

function yamlScalar(s: string): string {
	return /^[\w.-]+$/.test(s) ? s : JSON.stringify(s);
}

/** The kubeconfig YAML for a server URL and token. */
export function kubeconfigYaml(
	url: string,
	token: string,
	namespace = SIM_NAMESPACE,
	user = SIM_CONTEXT,
): string {
	return [
		'apiVersion: v1',
		'kind: Config',
		'clusters:',
		`- name: ${SIM_CONTEXT}`,
		'  cluster:',
		`    server: ${url}`,
		'    insecure-skip-tls-verify: true',
		'users:',
		`- name: ${yamlScalar(user)}`,
		'  user:',
		`    token: ${token}`,
		'contexts:',
		`- name: ${SIM_CONTEXT}`,
		'  context:',
		`    cluster: ${SIM_CONTEXT}`,
		`    user: ${yamlScalar(user)}`,
		`    namespace: ${namespace}`,
		`current-context: ${SIM_CONTEXT}`,
		'preferences: {}',
		'',
	].join('\n');
}

function seed(store: Store, config: SimClusterConfig, namespaces: string[]): void {
	const who = { who: 'system:apiserver' };
	for (const name of [...new Set(['default', 'kube-system', ...namespaces])]) {
		store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, who);
	}
	for (const role of bootstrapClusterRoles()) store.create('clusterroles', role, who);
	for (const b of bootstrapClusterRoleBindings()) store.create('clusterrolebindings', b, who);
	for (const sc of config.storageClasses) {
		store.create(
			'storageclasses',
			{
				apiVersion: 'storage.k8s.io/v1',
				kind: 'StorageClass',
				metadata: {
					name: sc.name,
					...(sc.isDefault
						? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }
						: {}),
				},
				provisioner: 'sim.k8s.io/hostpath',
				reclaimPolicy: 'Delete',
				volumeBindingMode: sc.bindingMode,
				allowVolumeExpansion: true,
			},
			who,
		);
	}
}

/**
 * Starts a simulated cluster on 127.0.0.1: the store, the API server, the controllers, and
 * a kubeconfig (context `ctpool-sim`, namespace corral-vms unless told) written with mode 0600.
 */
export async function startSimCluster(opts: StartSimOptions = {}): Promise<SimCluster> {
	const config = defaultClusterConfig(opts.config);
	const token = opts.token ?? randomBytes(24).toString('hex');
	const store = new Store({
		defaultGraceSeconds: config.defaultGraceSeconds,
		...(opts.historySize ? { historySize: opts.historySize } : {}),
		...(opts.compactionMs !== undefined ? { compactionMs: opts.compactionMs } : {}),
	});
	const namespace = opts.namespace ?? SIM_NAMESPACE;
	seed(store, config, [namespace, ...(opts.namespaces ?? [])]);
	const faults = new FaultSwitch();
	const audit = new AuditLog();
	store.onWrite((w) => audit.recordWrite(w));
	const authenticator = new Authenticator({ adminToken: token, store });
	const logs = new ContainerLogs();
	const server = new SimServer({
		store,
		config,
		token,
		authenticator,
		faults,
		audit,
		logs,
		...(opts.bookmarkIntervalMs ? { bookmarkIntervalMs: opts.bookmarkIntervalMs } : {}),
	});
	const port = await server.listen(opts.port ?? 0);
	const url = `http://127.0.0.1:${port}`;
	const httpsUrl = `https://127.0.0.1:${port}`;

	let tempDir: string | undefined;
	let kubeconfigPath = opts.kubeconfigPath;
	if (!kubeconfigPath) {
		tempDir = await mkdtemp(join(tmpdir(), 'ctpool-sim-'));
		kubeconfigPath = join(tempDir, 'kubeconfig');
	} else {
		await mkdir(dirname(kubeconfigPath), { recursive: true });
	}
	await writeFile(kubeconfigPath, kubeconfigYaml(httpsUrl, token, namespace), { mode: 0o600 });
	await chmod(kubeconfigPath, 0o600);

	// The controllers register the configured nodes, as each node's kubelet would.
	const controllers = startControllers(store, config, logs);
	const stopTokens = startTokenController(store, authenticator);
	const stopNamespaceDefaults = startNamespaceDefaults(store, server.caCertificate);

	let closing: Promise<void> | undefined;
	return {
		url,
		httpsUrl,
		port,
		token,
		kubeconfigPath,
		contextName: SIM_CONTEXT,
		namespace,
		store,
		controllers,
		faults,
		audit,
		config,
		openWatches: () => server.openWatches(),
		async serviceAccountKubeconfig(namespace, name, o = {}) {
			let sa = store.get('serviceaccounts', namespace, name);
			if (!sa) {
				sa = store.create(
					'serviceaccounts',
					{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
					{ who: 'ctpool-sim' },
				);
			}
			const { token: saToken } = authenticator.issue(sa, o.expirationSeconds ?? 365 * 24 * 3600);
			const file = o.path ?? join(dirname(kubeconfigPath), `kubeconfig-${namespace}-${name}`);
			await mkdir(dirname(file), { recursive: true });
			await writeFile(
				file,
				kubeconfigYaml(httpsUrl, saToken, namespace, `system:serviceaccount:${namespace}:${name}`),
				{ mode: 0o600 },
			);
			await chmod(file, 0o600);
			return file;
		},
		close() {
			closing ??= (async () => {
				faults.stop();
				controllers.stop();
				stopTokens();
				stopNamespaceDefaults();
				await server.close();
				if (tempDir) await rm(tempDir, { recursive: true, force: true });
			})();
			return closing;
		},
	};
}
