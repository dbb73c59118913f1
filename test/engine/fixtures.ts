import { expect } from 'vitest';
/** Pool definitions and cluster reads shared by the engine and command tests. */

import type { EngineContext } from '../../source/engine/index.js';
import { readPool } from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { PoolError } from '../../source/pool/errors.js';
import { roleRules } from '../../source/pool/permissions.js';
import type { SimObject } from '../../source/sim/store-api.js';
import { grantRole, type TestCluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

/** The objects of a kind in namespace corral, by name. */
export function objects(c: TestCluster, resource: string): Map<string, SimObject> {
	return new Map(
		c.sim.store.list(resource, { namespace: 'corral' }).map((o) => [o.metadata.name, o] as const),
	);
}

/** Waits until every member within size is Ready. */
export async function waitReady(ctx: EngineContext, pool: string, count: number): Promise<void> {
	await waitFor(async () => {
		const snap = await readPool(ctx, pool);
		return snap.members.filter((m) => m.state === 'Ready').length === count;
	}, `${count} ready members of ${pool}`);
}

/** The uid of an object of the namespace corral, or undefined. */
export function uidOf(c: TestCluster, resource: string, name: string): string | undefined {
	return c.sim.store.get(resource, 'corral', name)?.metadata.uid;
}

/** Writes a Lease straight into the store, as another client would. */
export function putLease(
	c: TestCluster,
	pool: string,
	member: string,
	holder: string,
	at: number,
	durationSeconds: number,
): void {
	const t = new Date(at).toISOString().replace('Z', '000Z');
	c.sim.store.create(
		'leases',
		{
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: {
				name: `corral-vdi-ct-${member}`,
				namespace: 'corral',
				labels: { 'corral.dev/vdi-ct-pool': pool, 'corral.dev/vdi-ct-member': member },
			},
			spec: {
				holderIdentity: holder,
				acquireTime: t,
				renewTime: t,
				leaseDurationSeconds: durationSeconds,
				leaseTransitions: 0,
			},
		},
		{ who: 'test' },
	);
}

/** Writes (or overwrites) a definition ConfigMap by hand, as `kubectl edit` would. */
export function putDefinition(c: TestCluster, pool: string, specText: string): void {
	const name = `corral-vdi-ctpool-${pool}`;
	const existing = c.sim.store.get('configmaps', 'corral', name);
	const obj: SimObject = {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name, namespace: 'corral', labels: { 'corral.dev/vdi-ct-pool': pool } },
		data: { spec: specText },
	};
	if (existing)
		c.sim.store.update('configmaps', { ...obj, metadata: { ...obj.metadata } }, { who: 'test' });
	else c.sim.store.create('configmaps', obj, { who: 'test' });
}

/** The PoolError a promise rejects with (fails the test when it resolves or throws another). */
export async function poolError(p: Promise<unknown>): Promise<PoolError> {
	const err = await p.then(
		() => null,
		(e: unknown) => e,
	);
	expect(err).toBeInstanceOf(PoolError);
	return err as PoolError;
}

/**
 * A connection acting as ServiceAccount `name`, bound to every rule ctpool asks for except
 * Events (`ctpool rbac --no-events`): each Event write is refused by the cluster itself.
 */
export async function kubeWithoutEvents(c: TestCluster, name: string): Promise<Kube> {
	const rules = roleRules({ events: false }).flatMap((p) => p.rules);
	return loadKube({ kubeconfig: await grantRole(c.sim, 'corral', name, rules) });
}
