/**
 * The real control plane as a test cluster (`npm run test:real`): kube-apiserver, etcd,
 * controller-manager, scheduler and kwok nodes started by `npm run real -- up` (the real
 * project's global setup does it). Each test cluster is a namespace of its own on that
 * shared control plane, so test files run side by side; what ctpool asked of the server is
 * read from the apiserver's audit log, by ctpool's User-Agent.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditMutation } from '../../source/sim/audit.js';
import { type KubeObject, ObjectApi } from './object-api.js';
import { waitFor } from './wait.js';

/** What `npm run real -- up` wrote once the cluster was Ready (scripts/real.mjs). */
export interface RealReady {
	pid: number;
	server: string;
	kubeconfig: string;
	auditLog: string;
	nodes: string[];
	versions: Record<string, string>;
}

/** The running real control plane, or an error saying how to start one. */
export async function realReady(): Promise<RealReady> {
	// @ts-expect-error: a plain ES module of the repository's scripts, without types.
	const real = (await import('../../scripts/real.mjs')) as { current(): RealReady | undefined };
	const ready = real.current();
	if (!ready)
		throw new Error(
			'the real control plane is not running: `npm run test:real` starts it (or `npm run real -- up`)',
		);
	return ready;
}

/** A fresh namespace name for one test cluster. */
export function testNamespace(): string {
	return `corral-${randomBytes(4).toString('hex')}`;
}

/** Creates a namespace and waits for its default ServiceAccount (pods are refused before it). */
export async function createNamespace(api: ObjectApi, name: string): Promise<void> {
	const a = await api.request('POST', '/api/v1/namespaces', {
		body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
	});
	if (a.status !== 201 && a.status !== 409)
		throw new Error(`create namespace ${name}: HTTP ${a.status}: ${a.text}`);
	await waitFor(async () => (await api.get('serviceaccounts', 'default', name)) !== undefined, {
		what: `the default ServiceAccount of namespace ${name}`,
		timeoutMs: 60_000,
	});
}

/**
 * A kubeconfig file (in `dir`) acting as ServiceAccount `name` of `namespace`, created if
 * missing, with a token from the TokenRequest API, as `kubectl create token` gets one.
 */
export async function serviceAccountKubeconfig(
	api: ObjectApi,
	ready: RealReady,
	dir: string,
	namespace: string,
	name: string,
): Promise<string> {
	if (!(await api.get('serviceaccounts', name, namespace)))
		await api.create('serviceaccounts', {
			apiVersion: 'v1',
			kind: 'ServiceAccount',
			metadata: { name, namespace },
		});
	const a = await api.request(
		'POST',
		`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
		{
			body: {
				apiVersion: 'authentication.k8s.io/v1',
				kind: 'TokenRequest',
				spec: { expirationSeconds: 86_400 },
			},
		},
	);
	if (a.status !== 201)
		throw new Error(`token for ${namespace}/${name}: HTTP ${a.status}: ${a.text}`);
	const token = (a.body as { status: { token: string } }).status.token;
	const ca = /certificate-authority-data: (\S+)/.exec(readFileSync(ready.kubeconfig, 'utf8'))?.[1];
	const file = join(dir, `${namespace}-${name}.kubeconfig`);
	writeFileSync(
		file,
		`apiVersion: v1
kind: Config
clusters:
- name: realcluster
  cluster:
    server: ${ready.server}
    certificate-authority-data: ${ca}
users:
- name: ${name}
  user:
    token: ${token}
contexts:
- name: ${name}
  context:
    cluster: realcluster
    namespace: ${namespace}
    user: ${name}
current-context: ${name}
`,
		{ mode: 0o600 },
	);
	return file;
}

/**
 * A kubeconfig acting as ServiceAccount `admin` of namespace `ns`, bound to cluster-admin
 * (ClusterRoleBinding `ctpool-test-admin-<ns>`), once the binding is in force.
 */
export async function clusterAdmin(
	api: ObjectApi,
	ready: RealReady,
	dir: string,
	ns: string,
): Promise<string> {
	await api.put('clusterrolebindings', {
		apiVersion: 'rbac.authorization.k8s.io/v1',
		kind: 'ClusterRoleBinding',
		metadata: { name: `ctpool-test-admin-${ns}` },
		roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
		subjects: [{ kind: 'ServiceAccount', name: 'admin', namespace: ns }],
	});
	const kubeconfig = await serviceAccountKubeconfig(api, ready, dir, ns, 'admin');
	const admin = ObjectApi.fromFile(kubeconfig, ns);
	await waitFor(async () => (await admin.request('GET', '/api/v1/nodes')).status === 200, {
		what: `the cluster-admin binding of ${ns}`,
		timeoutMs: 30_000,
	});
	return kubeconfig;
}

/** One line of the apiserver's audit log (level Metadata), as far as the tests read it. */
interface AuditLine {
	verb: string;
	requestURI: string;
	userAgent?: string;
	user?: { username?: string };
	requestReceivedTimestamp?: string;
	objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
	responseStatus?: { code?: number };
	responseObject?: KubeObject;
}

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The apiserver's audit log read as the simulated cluster's audit: a mark is a byte offset,
 * and `since` gives ctpool's requests and mutations after it in one namespace.
 */
export class RealAudit {
	constructor(
		private readonly file: string,
		private readonly namespace: string,
	) {}

	/** The current end of the log. */
	mark(): number {
		return statSync(this.file).size;
	}

	/**
	 * The lines after a mark. The apiserver writes a request's line before it answers
	 * (blocking mode); a short pause lets the lines of requests that ended just now land.
	 * (Waiting for the log to stand still would never end while other files run.)
	 */
	private async linesSince(mark: number): Promise<AuditLine[]> {
		await new Promise((r) => setTimeout(r, 200));
		const size = this.mark();
		const fd = openSync(this.file, 'r');
		try {
			const buf = Buffer.alloc(size - mark);
			readSync(fd, buf, 0, buf.length, mark);
			// Only whole lines: one still being written is left for a later read.
			const text = buf.toString('utf8');
			return text
				.slice(0, text.lastIndexOf('\n') + 1)
				.split('\n')
				.filter((l) => l.trim())
				.map((l) => JSON.parse(l) as AuditLine);
		} finally {
			closeSync(fd);
		}
	}

	/**
	 * ctpool's requests (by its User-Agent) after a mark, made as an identity of this test
	 * cluster (a ServiceAccount of its namespace: its admin or one a test granted rights).
	 */
	async ctpoolRequests(mark: number): Promise<AuditLine[]> {
		const ours = `system:serviceaccount:${this.namespace}:`;
		return (await this.linesSince(mark)).filter(
			(l) => l.userAgent?.startsWith('ctpool/') && l.user?.username?.startsWith(ours),
		);
	}

	/** ctpool's mutating requests after a mark, in the simulated audit's shape. */
	async ctpoolMutations(mark: number): Promise<AuditMutation[]> {
		return (
			(await this.ctpoolRequests(mark))
				// a self review (who am I, what may I do?) is a create that stores nothing
				.filter(
					(l) =>
						MUTATING.has(l.verb) &&
						// a server-side dry run stores nothing: not a mutation, as on the simulated cluster
						!/[?&]dryRun=All(&|$)/.test(l.requestURI) &&
						!l.objectRef?.subresource &&
						!/^selfsubject\w*reviews$/.test(l.objectRef?.resource ?? ''),
				)
				.map((l, i) => {
					const code = l.responseStatus?.code ?? 0;
					return {
						seq: mark + i,
						time: l.requestReceivedTimestamp ?? '',
						verb: l.verb,
						resource: l.objectRef?.resource ?? '',
						...(l.objectRef?.namespace ? { namespace: l.objectRef.namespace } : {}),
						name: l.objectRef?.name ?? '',
						resourceVersion: '',
						code,
						who: 'ctpool',
						changed: code >= 200 && code < 300,
					};
				})
		);
	}
}
