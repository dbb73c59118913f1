import { expect } from 'vitest';
/** Pool definitions and cluster reads shared by the engine and command tests. */

import type { EngineContext } from '../../source/engine/index.js';
import { readPool } from '../../source/engine/index.js';
import { type Kube, loadKube } from '../../source/kube/config.js';
import { PoolError } from '../../source/pool/errors.js';
import { roleRules } from '../../source/pool/permissions.js';
import { onRealCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { RealAudit, realReady } from '../support/real-cluster.js';
import { waitFor } from '../support/wait.js';

/** The objects of a kind in the test namespace, by name. */
export function objects(c: TestCluster, resource: string): Promise<Map<string, KubeObject>> {
	return c.api.byName(resource);
}

/**
 * Waits until every member within size is Ready (up to 20 s on the simulated cluster, 60 s
 * on the real one, where each PVC waits for the provisioner before its pod is scheduled).
 */
export async function waitReady(ctx: EngineContext, pool: string, count: number): Promise<void> {
	await waitFor(
		async () => {
			const snap = await readPool(ctx, pool);
			return snap.members.filter((m) => m.state === 'Ready').length === count;
		},
		{ what: `${count} ready members of ${pool}`, timeoutMs: onRealCluster ? 60_000 : 20_000 },
	);
}

/** The uid of an object of the test namespace, or undefined. */
export async function uidOf(
	c: TestCluster,
	resource: string,
	name: string,
): Promise<string | undefined> {
	return (await c.api.get(resource, name))?.metadata.uid;
}

/** Writes a Lease as another client would (a claim by another tool, a reconciler that died). */
export async function putLease(
	c: TestCluster,
	pool: string,
	member: string,
	holder: string,
	at: number,
	durationSeconds: number,
): Promise<void> {
	const t = new Date(at).toISOString().replace('Z', '000Z');
	await c.api.create('leases', {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: {
			name: `corral-vdi-ct-${member}`,
			labels: { 'corral.dev/vdi-ct-pool': pool, 'corral.dev/vdi-ct-member': member },
		},
		spec: {
			holderIdentity: holder,
			acquireTime: t,
			renewTime: t,
			leaseDurationSeconds: durationSeconds,
			leaseTransitions: 0,
		},
	});
}

/** Writes (or overwrites) a definition ConfigMap by hand, as `kubectl edit` would. */
export async function putDefinition(c: TestCluster, pool: string, specText: string): Promise<void> {
	const name = `corral-vdi-ctpool-${pool}`;
	const existing = await c.api.get('configmaps', name);
	await c.api.put('configmaps', {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name, labels: { 'corral.dev/vdi-ct-pool': pool } },
		data: { ...((existing?.data as Record<string, string> | undefined) ?? {}), spec: specText },
	});
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
	return loadKube({ kubeconfig: await c.grant(name, rules) });
}

/**
 * A connection acting as ServiceAccount `name`, bound to every rule ctpool asks for except
 * `verb` on `resource`: that one request is refused by the cluster's own RBAC (a 403 with
 * the apiserver's text), on the simulated cluster and the real one alike.
 */
export async function kubeWithout(
	c: TestCluster,
	name: string,
	verb: string,
	resource: string,
): Promise<Kube> {
	const rules = roleRules()
		.flatMap((p) => p.rules)
		.flatMap((r) => {
			if (!r.resources.includes(resource) || !r.verbs.includes(verb)) return [r];
			const rest = r.resources.filter((x) => x !== resource);
			return [
				...(rest.length > 0 ? [{ ...r, resources: rest }] : []),
				{ ...r, resources: [resource], verbs: r.verbs.filter((v) => v !== verb) },
			];
		});
	return loadKube({ kubeconfig: await c.grant(name, rules) });
}

/** One request ctpool made: its verb (get, list, watch, create, ...) and resource. */
export interface CtpoolRequest {
	verb: string;
	resource: string;
}

/** ctpool's requests after a mark, with verb and resource (the simulated audit, or the apiserver's audit log). */
export async function ctpoolRequestList(c: TestCluster, mark: number): Promise<CtpoolRequest[]> {
	if (c.kind === 'sim')
		return c.sim.audit
			.since(mark)
			.requests.filter((r) => r.who === 'ctpool')
			.map((r) => ({ verb: r.verb, resource: r.resource ?? '' }));
	const audit = new RealAudit((await realReady()).auditLog, c.ns);
	return (await audit.ctpoolRequests(mark)).map((l) => ({
		verb: l.verb,
		resource: l.objectRef?.resource ?? '',
	}));
}
