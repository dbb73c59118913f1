/** The embedded simulated Kubernetes cluster: start it, point a kubeconfig at it, close it. */

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AuditLog } from './audit.js';
import { defaultClusterConfig, type SimClusterConfig } from './config.js';
import { ContainerLogs } from './container-logs.js';
import { type SimControllers, startControllers } from './controllers/index.js';
import { FaultSwitch } from './faults.js';
import { SimServer } from './server.js';
import { Store } from './store.js';

export type { AuditLog, AuditMutation, AuditRequest } from './audit.js';
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
	/** Namespaces to create beside `default` and `corral`. */
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
	/** Ends every watch and connection, stops the controllers, removes a temp kubeconfig. */
	close(): Promise<void>;
}

/** The kubeconfig YAML for a server URL and token. */
export function kubeconfigYaml(url: string, token: string, namespace = 'corral'): string {
	return [
		'apiVersion: v1',
		'kind: Config',
		'clusters:',
		`- name: ${SIM_CONTEXT}`,
		'  cluster:',
		`    server: ${url}`,
		'    insecure-skip-tls-verify: true',
		'users:',
		`- name: ${SIM_CONTEXT}`,
		'  user:',
		`    token: ${token}`,
		'contexts:',
		`- name: ${SIM_CONTEXT}`,
		'  context:',
		`    cluster: ${SIM_CONTEXT}`,
		`    user: ${SIM_CONTEXT}`,
		`    namespace: ${namespace}`,
		`current-context: ${SIM_CONTEXT}`,
		'preferences: {}',
		'',
	].join('\n');
}

function seed(store: Store, config: SimClusterConfig, namespaces: string[]): void {
	const who = { who: 'system:apiserver' };
	for (const name of [...new Set(['default', 'kube-system', 'corral', ...namespaces])]) {
		store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, who);
	}
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
 * a kubeconfig (context `ctpool-sim`, namespace corral) written with mode 0600.
 */
export async function startSimCluster(opts: StartSimOptions = {}): Promise<SimCluster> {
	const config = defaultClusterConfig(opts.config);
	const token = opts.token ?? randomBytes(24).toString('hex');
	const store = new Store({
		defaultGraceSeconds: config.defaultGraceSeconds,
		...(opts.historySize ? { historySize: opts.historySize } : {}),
		...(opts.compactionMs !== undefined ? { compactionMs: opts.compactionMs } : {}),
	});
	seed(store, config, opts.namespaces ?? []);
	const faults = new FaultSwitch();
	const audit = new AuditLog();
	store.onWrite((w) => audit.recordWrite(w));
	const logs = new ContainerLogs();
	const server = new SimServer({
		store,
		config,
		token,
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
	await writeFile(kubeconfigPath, kubeconfigYaml(httpsUrl, token), { mode: 0o600 });
	await chmod(kubeconfigPath, 0o600);

	// The controllers register the configured nodes, as each node's kubelet would.
	const controllers = startControllers(store, config, logs);

	let closing: Promise<void> | undefined;
	return {
		url,
		httpsUrl,
		port,
		token,
		kubeconfigPath,
		contextName: SIM_CONTEXT,
		store,
		controllers,
		faults,
		audit,
		config,
		openWatches: () => server.openWatches(),
		close() {
			closing ??= (async () => {
				faults.stop();
				controllers.stop();
				await server.close();
				if (tempDir) await rm(tempDir, { recursive: true, force: true });
			})();
			return closing;
		},
	};
}
