/**
 * The reconcilers' rights in a chaos run: a ServiceAccount bound to the Role `ctpool rbac`
 * prints (roleRules()), through the simulated cluster's real RBAC. The RoleBinding can be
 * deleted for a few seconds (every request of the reconcilers is then forbidden) and made
 * again.
 */

import { readFile } from 'node:fs/promises';
import { roleRules } from '../source/pool/permissions.js';
import type { SimCluster } from '../source/sim/index.js';

/** The ServiceAccount, Role and RoleBinding name of the chaos reconcilers. */
export const RECONCILER_ACCOUNT = 'ctpool-chaos-reconciler';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const WHO = 'chaos-rights';

/** The reconcilers' account: its token, and the binding that can be revoked and restored. */
export class ReconcilerRights {
	/** How often the rights were revoked (and restored). */
	revoked = 0;
	private bound = false;

	constructor(
		private readonly sim: SimCluster,
		private readonly namespace: string,
	) {}

	/** Makes the ServiceAccount, the Role and its RoleBinding; resolves with the account's token. */
	async setUp(dir: string): Promise<string> {
		const file = await this.sim.serviceAccountKubeconfig(this.namespace, RECONCILER_ACCOUNT, {
			path: `${dir}/reconciler-account.kubeconfig`,
		});
		const token = /^\s*token:\s*"?([^"\s]+)"?\s*$/m.exec(await readFile(file, 'utf8'))?.[1];
		if (!token)
			throw new Error('the simulated cluster wrote a ServiceAccount kubeconfig without a token');
		this.sim.store.create(
			'roles',
			{
				apiVersion: `${RBAC_GROUP}/v1`,
				kind: 'Role',
				metadata: { name: RECONCILER_ACCOUNT, namespace: this.namespace },
				rules: roleRules().flatMap((p) => p.rules),
			},
			{ who: WHO },
		);
		this.bind();
		return token;
	}

	/** Whether the RoleBinding is in place. */
	isBound(): boolean {
		return this.bound;
	}

	/** Deletes the RoleBinding: the reconcilers are forbidden everything. */
	revoke(): void {
		if (!this.bound) return;
		this.sim.store.delete('rolebindings', this.namespace, RECONCILER_ACCOUNT, { who: WHO });
		this.bound = false;
		this.revoked++;
	}

	/** Makes the RoleBinding again. */
	restore(): void {
		if (this.bound) return;
		this.bind();
	}

	private bind(): void {
		this.sim.store.create(
			'rolebindings',
			{
				apiVersion: `${RBAC_GROUP}/v1`,
				kind: 'RoleBinding',
				metadata: { name: RECONCILER_ACCOUNT, namespace: this.namespace },
				roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: RECONCILER_ACCOUNT },
				subjects: [{ kind: 'ServiceAccount', name: RECONCILER_ACCOUNT, namespace: this.namespace }],
			},
			{ who: WHO },
		);
		this.bound = true;
	}
}
