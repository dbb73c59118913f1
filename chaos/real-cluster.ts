/**
 * The chaos run on a real control plane (`npm run chaos -- --cluster real`): the one
 * scripts/real.mjs runs (started when none is), a fresh namespace of its own, an admin
 * ServiceAccount for ctpool's in-process actors (so the apiserver's audit log tells ctpool's
 * writes), and the cluster's own admin for the planter, the rights and the watches.
 */

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ResourceName, SimObject } from '../source/sim/store-api.js';
import { ObjectApi } from '../test/support/object-api.js';
import {
	clusterAdmin,
	createNamespace,
	RealAudit,
	type RealReady,
	serviceAccountKubeconfig,
} from '../test/support/real-cluster.js';
import type { PlantStore, PlantWrite } from './foreign-objects.js';
import { repoRoot } from './paths.js';
import { apiRights, type RightsCluster } from './reconciler-rights.js';
import type { TlsUpstream } from './reconciler-tap.js';

interface RealModule {
	current(instance?: string): RealReady | undefined;
	up(o: Record<string, unknown>): Promise<RealReady>;
	down(o: Record<string, unknown>): Promise<void>;
}

/** A namespace of a real control plane, ready for a chaos run. */
export interface RealChaosCluster {
	namespace: string;
	/** The cluster's own admin (the planter, the rights, the watches). */
	api: ObjectApi;
	/** A kubeconfig of the namespace's cluster-admin ServiceAccount: ctpool's in-process actors. */
	kubeconfig: string;
	/** The API server, for the reconcilers' taps. */
	upstream: TlsUpstream;
	rights: RightsCluster;
	/** Where the planter writes, and ctpool's writes to its objects from the audit log. */
	plantStore: PlantStore;
	/** The apiserver's audit log file. */
	auditLog: string;
	close(): Promise<void>;
}

/**
 * A fresh namespace of the running real control plane (scripts/real.mjs `instance`,
 * started when it is not running; never stopped here).
 */
export async function startRealChaosCluster(
	dir: string,
	instance = 'default',
): Promise<RealChaosCluster> {
	const real = (await import(
		pathToFileURL(join(repoRoot(), 'scripts', 'real.mjs')).href
	)) as RealModule;
	const ready = real.current(instance) ?? (await real.up({ instance, quiet: true }));
	const namespace = `chaos-${randomBytes(4).toString('hex')}`;
	const api = ObjectApi.fromFile(ready.kubeconfig, namespace);
	await createNamespace(api, namespace);
	const kubeconfig = await clusterAdmin(api, ready, dir, namespace);
	const audit = new RealAudit(ready.auditLog, namespace);
	const mark = audit.mark();
	const server = new URL(ready.server);
	const caData = /certificate-authority-data: (\S+)/.exec(
		readFileSync(ready.kubeconfig, 'utf8'),
	)?.[1];
	if (!caData) throw new Error(`no certificate-authority-data in ${ready.kubeconfig}`);
	const plantStore: PlantStore = {
		create: (resource: ResourceName, input: SimObject) =>
			api.create(resource, input) as unknown as Promise<SimObject>,
		get: (resource: ResourceName, ns: string | undefined, name: string) =>
			api.get(resource, name, ns) as unknown as Promise<SimObject | undefined>,
		// ctpool's writes (by its User-Agent, as this namespace's ServiceAccounts) since the start.
		async writes(): Promise<PlantWrite[]> {
			const done = (await audit.ctpoolMutations(mark)).filter((m) => m.changed);
			return done.map((m) => ({
				verb: m.verb,
				resource: m.resource as ResourceName,
				...(m.namespace ? { namespace: m.namespace } : {}),
				name: m.name,
				revision: 0,
				who: 'ctpool',
			}));
		},
	};
	return {
		namespace,
		api,
		kubeconfig,
		upstream: {
			host: server.hostname,
			port: Number(server.port || 443),
			ca: Buffer.from(caData, 'base64'),
		},
		rights: apiRights(api, (ns, name) => serviceAccountKubeconfig(api, ready, dir, ns, name)),
		plantStore,
		auditLog: ready.auditLog,
		async close() {
			await api.delete('namespaces', namespace).catch(() => false);
			await api.delete('clusterrolebindings', `ctpool-test-admin-${namespace}`).catch(() => false);
		},
	};
}
