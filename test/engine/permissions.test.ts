/**
 * ctpool works with exactly the seed's permissions: every request of a pool's whole life
 * cycle is allowed by the rules `ctpool rbac` prints (source/pool/permissions.ts), the
 * definition is written with a merge patch carrying its resourceVersion (never a PUT), and a
 * denied Event write is said once and fails nothing.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, release, writeDefinition } from '../../source/engine/index.js';
import {
	allows,
	COMMAND_RULES,
	EVENT_RULES,
	SERVICE_READ_RULES,
} from '../../source/pool/permissions.js';
import { ctpool } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { RealAudit, realReady } from '../support/real-cluster.js';
import { kubeWithoutEvents, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** The API group of a resource ctpool uses. */
function groupOf(resource: string): string {
	return resource === 'leases' ? 'coordination.k8s.io' : '';
}

/** One request ctpool made, as RBAC names it: the verb and the resource (with its subresource). */
interface Asked {
	verb: string;
	resource: string;
}

/**
 * The API requests (discovery left out) ctpool made after a mark as ServiceAccount `account`
 * of the test namespace: from the simulated cluster's audit, or the apiserver's audit log.
 */
async function requestsSince(mark: number, account: string): Promise<Asked[]> {
	if (c.kind === 'sim')
		return c.sim.audit
			.since(mark)
			.requests.filter((r) => r.who === 'ctpool' && r.resource && r.verb !== 'discovery')
			.map((r) => ({
				verb: r.verb === 'exec' ? 'create' : r.verb,
				resource: r.subresource ? `${r.resource}/${r.subresource}` : r.resource!,
			}));
	// By the ServiceAccount's name: ctpool runs of other test files share the log.
	const user = `system:serviceaccount:${c.ns}:${account}`;
	const audit = new RealAudit((await realReady()).auditLog, c.ns);
	return (await audit.ctpoolRequests(mark))
		.filter(
			(l) =>
				(l as { user?: { username?: string } }).user?.username === user && l.objectRef?.resource,
		)
		.map((l) => ({
			verb: l.verb,
			resource: l.objectRef!.subresource
				? `${l.objectRef!.resource}/${l.objectRef!.subresource}`
				: l.objectRef!.resource!,
		}));
}

describe('the seed permissions', () => {
	it('cover every request of apply, reconcile, status, claim, maintenance, release, a changed image and delete', async () => {
		// ctpool acting as a ServiceAccount bound to exactly these rules
		const rules = [...COMMAND_RULES, ...EVENT_RULES, ...SERVICE_READ_RULES];
		const account = 'perm';
		const kc = ['--kubeconfig', await c.grant(account, rules)];
		const mark = c.mark();
		const image = (n: number) => ['--image', `ghcr.io/example/desktop:${n}`];
		const steps = [
			['apply', 'perm', ...image(1), '--size', '2', '--mem', '64Mi', '--disk', '1Gi'],
			['reconcile', 'perm'],
			['claim', 'perm', 'alice@example.com'],
			['maintenance', 'perm', 'perm-2', 'on', 'check'],
			['maintenance', 'perm', 'perm-2', 'off'],
			['status', 'perm', '-o', 'json'],
			['apply', 'perm', ...image(2)],
			['release', 'perm', 'perm-1', 'alice@example.com'],
			['delete', 'perm'],
		];
		for (const argv of steps) {
			const r = await ctpool([...argv, ...kc]);
			expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: '' });
		}
		const requests = await requestsSince(mark, account);
		expect(requests.length).toBeGreaterThan(20);
		// Asking what it may do (the up-front check of a command) needs no Role: every
		// authenticated identity may (the cluster's own ClusterRole system:basic-user).
		const outside = requests
			.map((r) => `${r.verb} ${r.resource}`)
			// and who it is (the audit records it): the same ClusterRole
			.filter((vr) => !/^create selfsubject(rules|access|)reviews$/.test(vr))
			.filter((vr) => {
				const [verb, resource] = vr.split(' ') as [string, string];
				return !allows(rules, groupOf(resource.split('/')[0]!), resource, verb);
			});
		expect([...new Set(outside)]).toEqual([]);
		// The definition was changed (the second apply) with a patch, never an update.
		const cmWrites = (await c.ctpoolMutations(mark))
			.filter((m) => m.resource === 'configmaps')
			.map((m) => m.verb);
		expect(cmWrites).toContain('patch');
		expect(cmWrites).not.toContain('update');
	});

	it('writes the definition as a compare-and-swap: a write that lost a race is made again from the new definition', async () => {
		const ctx = c.context();
		await writeDefinition(ctx, 'race', poolSpec({ size: 1 }));
		// Another admin writes between ctpool's read and its patch: the patch carries a stale
		// resourceVersion.
		let raced = false;
		const core = ctx.kube.core;
		ctx.kube = {
			...ctx.kube,
			core: new Proxy(core, {
				get(target, key) {
					if (key !== 'patchNamespacedConfigMap') return Reflect.get(target, key, target);
					return async (...args: Parameters<typeof core.patchNamespacedConfigMap>) => {
						if (!raced) {
							raced = true;
							const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-race')) as KubeObject & {
								data: Record<string, string>;
							};
							await c.api.update('configmaps', {
								...cm,
								data: { ...cm.data, spec: JSON.stringify(poolSpec({ size: 1, memory: '96Mi' })) },
							});
						}
						return target.patchNamespacedConfigMap(...args);
					};
				},
			}),
		};
		let calls = 0;
		await writeDefinition(ctx, 'race', (current) => {
			calls++;
			return { ...current!, size: 4 };
		});
		expect(raced).toBe(true);
		expect(calls).toBe(2);
		const cm = (await c.api.get('configmaps', 'corral-vdi-ctpool-race')) as KubeObject & {
			data: Record<string, string>;
		};
		// The other admin's memory is kept; the size is ours.
		expect(JSON.parse(cm.data.spec!)).toMatchObject({ size: 4, memory: '96Mi' });
	});

	it('says once that Events are denied, and every operation still works', async () => {
		const ctx = c.context({ actor: 'no-events' });
		ctx.kube = await kubeWithoutEvents(c, 'no-events');
		const first = await apply(ctx, 'quiet', poolSpec({ size: 2 }));
		expect(first.errors).toEqual([]);
		await waitReady(ctx, 'quiet', 2);
		const won = await claim(ctx, 'quiet', 'bob@example.com');
		await release(ctx, 'quiet', won.member, 'bob@example.com');
		const notes = ctx.events.filter((e) => e.action === 'events');
		expect(notes).toHaveLength(1);
		expect(notes[0]).toMatchObject({ outcome: 'info' });
		expect(notes[0]!.message).toContain('Kubernetes Events are not recorded');
		expect(notes[0]!.message).toContain('create events');
		expect(ctx.events.filter((e) => e.outcome === 'error')).toEqual([]);
	});
});
