/** The in-cluster configuration against the simulated cluster: service account files, CA, namespace. */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPoolController } from '../../source/controller/pool-controller.js';
import { apply, createEngine, createEngineContext } from '../../source/engine/index.js';
import { listPoolRefs } from '../../source/engine/list-definitions.js';
import { loadKube } from '../../source/kube/config.js';
import { PoolError } from '../../source/pool/errors.js';
import { selfSignedCertificate } from '../../source/sim/cert.js';
import type { SimObject } from '../../source/sim/store-api.js';
import { ctpool } from '../commands/capture.js';
import { poolSpec } from '../support/pool-spec.js';
import { simFetch, startTestSim, type TestSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

let sim: TestSim;
let dir: string;
/** A HOME without a kubeconfig, so nothing but the in-cluster configuration is found. */
let home: string;

/** Writes service account files as the kubelet mounts them; returns their directory. */
async function serviceAccount(name: string, files: Record<string, string>): Promise<string> {
	const at = join(dir, name);
	await mkdir(at, { recursive: true });
	for (const [file, text] of Object.entries(files)) await writeFile(join(at, file), text);
	return at;
}

/** The certificate the simulated cluster serves over TLS, as PEM (self-signed: its own CA). */
function servedCertificate(port: number): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
			const cert = socket.getPeerX509Certificate();
			socket.destroy();
			if (cert) resolve(cert.toString());
			else reject(new Error('the server sent no certificate'));
		});
		socket.on('error', reject);
	});
}

/** The environment of a pod whose API server is the simulated cluster. */
function podEnv(): Record<string, string> {
	return {
		HOME: home,
		KUBERNETES_SERVICE_HOST: '127.0.0.1',
		KUBERNETES_SERVICE_PORT: String(sim.cluster.port),
	};
}

beforeAll(async () => {
	sim = await startTestSim({ namespaces: ['team-b'] });
	dir = await mkdtemp(join(tmpdir(), 'ctpool-in-cluster-'));
	home = join(dir, 'home');
	await mkdir(home);
});
afterAll(async () => {
	await sim?.cleanup();
	if (dir) await rm(dir, { recursive: true, force: true });
});

describe('in-cluster configuration', () => {
	// The simulated cluster has one identity, its admin token; a service account token of its
	// own comes with the simulated RBAC.
	it('uses the service account token, verifies the server with its CA, and defaults to its namespace', async () => {
		const sa = await serviceAccount('good', {
			token: sim.cluster.token,
			'ca.crt': await servedCertificate(sim.cluster.port),
			namespace: 'team-b',
		});
		const kube = await loadKube({ env: podEnv(), serviceAccountDir: sa });
		expect(kube.namespace).toBe('team-b');
		expect(kube.server).toBe(`https://127.0.0.1:${sim.cluster.port}`);
		expect(kube.contextName).toBe('inClusterContext');

		// typed calls (apply), raw lists and watches (the pool controller) all go through
		const ctx = createEngineContext(kube, { actor: 'in-cluster', deleteTimeoutMs: 20_000 });
		const result = await apply(ctx, 'pod-pool', poolSpec({ size: 2 }));
		expect(result.errors).toEqual([]);
		expect(sim.cluster.store.get('pods', 'team-b', 'pod-pool-1')).toBeDefined();
		expect(await listPoolRefs(kube, null)).toEqual([{ namespace: 'team-b', pool: 'pod-pool' }]);
		const pools = startPoolController({
			kube,
			namespace: kube.namespace,
			resyncMs: 60_000,
			engine: createEngine(kube, { actor: 'in-cluster' }),
		});
		try {
			await waitFor(() => pools.notReady() === null, { what: 'the watches in sync over TLS' });
			expect(pools.cache.keys()).toEqual(['team-b/pod-pool']);
		} finally {
			await pools.stop();
		}
	});

	it('refuses a server its CA did not sign', async () => {
		const sa = await serviceAccount('other-ca', {
			token: sim.cluster.token,
			'ca.crt': selfSignedCertificate('another-cluster').cert,
			namespace: 'team-b',
		});
		const kube = await loadKube({ env: podEnv(), serviceAccountDir: sa });
		await expect(listPoolRefs(kube, 'team-b')).rejects.toThrow(/certificate|self.signed|verify/i);
	});

	it('names the missing token file, and a kubeconfig still wins over the pod environment', async () => {
		const empty = await serviceAccount('empty', {});
		const err = await loadKube({ env: podEnv(), serviceAccountDir: empty }).catch(
			(e: unknown) => e,
		);
		expect(err).toBeInstanceOf(PoolError);
		expect((err as PoolError).kind).toBe('usage');
		expect((err as PoolError).message).toContain(
			`no service account token at ${join(empty, 'token')}`,
		);
		const kube = await loadKube({
			env: { ...podEnv(), KUBECONFIG: sim.kubeconfigPath },
			serviceAccountDir: empty,
		});
		expect(kube.contextName).toBe(sim.cluster.contextName);
	});
});

describe('in-cluster configuration with a service account token', () => {
	/** A token for team-b/NAME from the TokenRequest API, as the kubelet projects one. */
	async function tokenFor(name: string): Promise<string> {
		sim.cluster.store.create(
			'serviceaccounts',
			{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'team-b' } },
			{ who: 'test-admin' },
		);
		const r = await simFetch(
			sim.cluster,
			`/api/v1/namespaces/team-b/serviceaccounts/${name}/token`,
			{
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({
					apiVersion: 'authentication.k8s.io/v1',
					kind: 'TokenRequest',
					spec: { expirationSeconds: 3600 },
				}),
			},
		);
		expect(r.status).toBe(201);
		return (r.json() as { status: { token: string } }).status.token;
	}

	it('runs status and reconcile under the Role `ctpool rbac` prints, and is refused without it', async () => {
		const admin = createEngine(
			await loadKube({ kubeconfig: sim.kubeconfigPath, namespace: 'team-b' }),
			{ actor: 'test-admin', deleteTimeoutMs: 20_000 },
		);
		await admin.apply('sa-pool', poolSpec({ size: 1 }));
		const sa = await serviceAccount('reconciler', {
			token: await tokenFor('reconciler'),
			'ca.crt': await servedCertificate(sim.cluster.port),
			namespace: 'team-b',
		});
		// no -n: the pod's namespace is its service account's
		const inPod = (argv: string[]) =>
			ctpool(argv, {
				env: { NO_COLOR: '1', ...podEnv() },
				connection: { env: podEnv(), serviceAccountDir: sa },
			});

		// authenticated as the service account, but nothing is granted yet
		for (const argv of [
			['status', 'sa-pool'],
			['reconcile', 'sa-pool'],
		]) {
			const r = await inPod(argv);
			expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
			// refused in the service account's namespace (no -n given): authenticated, not authorised
			expect(r.stderr).toMatch(
				/^ctpool: (\w+ refused before any change: )?forbidden: cannot \w+ \w+ in namespace team-b/,
			);
		}

		// `ctpool rbac | kubectl apply -f -`, as the admin
		const printed = await ctpool(['rbac', '--service-account', 'reconciler', '-n', 'team-b']);
		expect(printed.code).toBe(0);
		const docs = yaml.loadAll(printed.stdout) as SimObject[];
		expect(docs.map((d) => d.kind).sort()).toEqual(['Role', 'RoleBinding']);
		for (const doc of docs)
			sim.cluster.store.create(doc.kind === 'Role' ? 'roles' : 'rolebindings', doc, {
				who: 'test-admin',
			});

		const status = await inPod(['status', 'sa-pool', '-o', 'json']);
		expect(status.stderr).toBe('');
		expect(status.code).toBe(0);
		expect(JSON.parse(status.stdout)).toMatchObject({ desired: 1, observed: 1 });
		// the admin grows the pool without reconciling; the service account's reconcile does it
		await admin.writeDefinition('sa-pool', poolSpec({ size: 2 }));
		const reconciled = await inPod(['reconcile', 'sa-pool']);
		expect(reconciled.stderr).toBe('');
		expect(reconciled.code).toBe(0);
		expect(reconciled.stdout).toContain('sa-pool-2 created');
		expect(sim.cluster.store.get('pods', 'team-b', 'sa-pool-2')).toBeDefined();
	});
});
