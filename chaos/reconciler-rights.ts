/**
 * The reconcilers' rights in a chaos run: a ServiceAccount bound to the Role `ctpool rbac`
 * prints (roleRules()), through the simulated cluster's real RBAC. The RoleBinding can be
 * deleted for a few seconds (every request of the reconcilers is then forbidden) and made
 * again. On a real cluster the same objects are written through its API as an admin, and
 * the account's token comes from the TokenRequest API.
 */

import { readFile } from 'node:fs/promises';
import { roleRules } from '../source/pool/permissions.js';
import type { SimCluster } from '../source/sim/index.js';
import type { ObjectApi } from '../test/support/object-api.js';

/** The ServiceAccount, Role and RoleBinding name of the chaos reconcilers. */
export const RECONCILER_ACCOUNT = 'ctpool-chaos-reconciler';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const WHO = 'chaos-rights';

/** Where the rights are written: the simulated cluster's store, or a real cluster's API. */
export interface RightsCluster {
	/** A kubeconfig file acting as the ServiceAccount (created if missing). */
	accountKubeconfig(namespace: string, name: string, path: string): Promise<string>;
	create(resource: 'roles' | 'rolebindings', obj: RbacObject): Promise<void>;
	delete(resource: 'rolebindings', namespace: string, name: string): Promise<void>;
}

type RbacObject = {
	apiVersion: string;
	kind: string;
	metadata: { name: string; namespace: string };
} & Record<string, unknown>;

/** The rights written into the simulated cluster's store. */
export function simRights(sim: SimCluster): RightsCluster {
	return {
		accountKubeconfig: (namespace, name, path) =>
			sim.serviceAccountKubeconfig(namespace, name, { path }),
		async create(resource, obj) {
			sim.store.create(resource, obj, { who: WHO });
		},
		async delete(resource, namespace, name) {
			sim.store.delete(resource, namespace, name, { who: WHO });
		},
	};
}

/** The rights written through a real cluster's API by an admin. */
export function apiRights(
	api: ObjectApi,
	accountKubeconfig: RightsCluster['accountKubeconfig'],
): RightsCluster {
	return {
		accountKubeconfig,
		async create(resource, obj) {
			await api.create(resource, obj);
		},
		async delete(resource, namespace, name) {
			await api.delete(resource, name, { namespace });
		},
	};
}

/** The reconcilers' account: its token, and the binding that can be revoked and restored. */
export class ReconcilerRights {
	/** How often the rights were revoked (and restored). */
	revoked = 0;
	private bound = false;
	private readonly cluster: RightsCluster;

	constructor(
		cluster: SimCluster | RightsCluster,
		private readonly namespace: string,
	) {
		this.cluster = 'store' in cluster ? simRights(cluster) : cluster;
	}

	/** Makes the ServiceAccount, the Role and its RoleBinding; resolves with the account's token. */
	async setUp(dir: string): Promise<string> {
		const file = await this.cluster.accountKubeconfig(
			this.namespace,
			RECONCILER_ACCOUNT,
			`${dir}/reconciler-account.kubeconfig`,
		);
		const token = /^\s*token:\s*"?([^"\s]+)"?\s*$/m.exec(await readFile(file, 'utf8'))?.[1];
		if (!token) throw new Error('the cluster gave a ServiceAccount kubeconfig without a token');
		await this.cluster.create('roles', {
			apiVersion: `${RBAC_GROUP}/v1`,
			kind: 'Role',
			metadata: { name: RECONCILER_ACCOUNT, namespace: this.namespace },
			rules: roleRules().flatMap((p) => p.rules),
		});
		await this.bind();
		return token;
	}

	/** Whether the RoleBinding is in place. */
	isBound(): boolean {
		return this.bound;
	}

	/** Deletes the RoleBinding: the reconcilers are forbidden everything. */
	async revoke(): Promise<void> {
		if (!this.bound) return;
		this.bound = false;
		this.revoked++;
		await this.cluster.delete('rolebindings', this.namespace, RECONCILER_ACCOUNT);
	}

	/** Makes the RoleBinding again. */
	async restore(): Promise<void> {
		if (this.bound) return;
		await this.bind();
	}

	private async bind(): Promise<void> {
		this.bound = true;
		await this.cluster.create('rolebindings', {
			apiVersion: `${RBAC_GROUP}/v1`,
			kind: 'RoleBinding',
			metadata: { name: RECONCILER_ACCOUNT, namespace: this.namespace },
			roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: RECONCILER_ACCOUNT },
			subjects: [{ kind: 'ServiceAccount', name: RECONCILER_ACCOUNT, namespace: this.namespace }],
		});
	}
}
