/**
 * Issue 23: Corral's own CT commands on the same members. The requests are Corral's:
 * `corral ct stop` is `kubectl delete pod <member> -n <ns> --ignore-not-found` (a DELETE with
 * the pod's default grace period), and `corral ct start` is `kubectl apply -f -` of the pod
 * Corral's pkg/ct generatePod makes from the CT spec on the member's PVC (only
 * `corral.dev/ct=true` and `corral.dev/ct-name` as labels). ctpool adopts that pod.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, claim, readPool, reconcile, release } from '../../source/engine/index.js';
import { formatMicroTime } from '../../source/pool/index.js';
import { roleRules } from '../../source/pool/permissions.js';
import { ctpool, defaultEnv } from '../commands/capture.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import type { KubeObject } from '../support/object-api.js';
import { poolSpec } from '../support/pool-spec.js';
import { waitFor } from '../support/wait.js';
import { poolError, putLease, waitReady } from './fixtures.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
});
afterAll(() => c?.close());

/** A pod's default grace period is 30 s, which the real control plane's nodes honour. */
const STOP_MS = 90_000;

/** `corral ct stop <member>`: kubectl's DELETE (default grace), then kubectl waits until it is gone. */
async function corralStop(member: string): Promise<void> {
	await c.api.delete('pods', member, { propagationPolicy: 'Background' });
	await waitFor(async () => !(await c.api.get('pods', member)), {
		what: `pod ${member} gone after corral ct stop`,
		timeoutMs: STOP_MS,
	});
}

interface CtSpec {
	image: string;
	cpu: number;
	mem: string;
	privileged: boolean;
	init?: boolean;
}

/** The pod Corral's pkg/ct generatePod makes for a CT from its spec (no mounts). */
function corralPod(member: string, spec: CtSpec): KubeObject {
	const cpu = String(spec.cpu || 1);
	const mem = spec.mem || '512Mi';
	const container: Record<string, unknown> = {
		name: 'ct',
		image: spec.image,
		stdin: true,
		tty: true,
		resources: { limits: { cpu, memory: mem }, requests: { cpu, memory: mem } },
		securityContext: { privileged: spec.privileged },
		volumeMounts: [{ name: 'data', mountPath: spec.privileged ? '/corral-rootfs' : '/data' }],
	};
	if (!spec.privileged && !spec.init) container.command = ['sleep', 'infinity'];
	const pod = {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: {
			name: member,
			namespace: c.ns,
			labels: { 'corral.dev/ct': 'true', 'corral.dev/ct-name': member },
		},
		spec: {
			restartPolicy: 'Always',
			containers: [container],
			volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `${member}-data` } }],
		},
	};
	return pod as unknown as KubeObject;
}

/** The CT spec on the member's PVC, as Corral reads it (`kubectl get pvc -o jsonpath`). */
async function recordedSpec(member: string): Promise<CtSpec> {
	const pvc = await c.api.get('persistentvolumeclaims', `${member}-data`);
	return JSON.parse(pvc!.metadata.annotations!['corral.ct/spec']!) as CtSpec;
}

/** A pool of one Ready member, then `corral ct stop` on it. */
async function stoppedMember(pool: string): Promise<ReturnType<TestCluster['context']>> {
	const ctx = c.context();
	await apply(ctx, pool, poolSpec({ size: 1 }));
	await waitReady(ctx, pool, 1);
	await corralStop(`${pool}-1`);
	return ctx;
}

/**
 * `corral ct start <member>`: Corral reads the CT spec from the PVC's annotation
 * (`kubectl get pvc -o jsonpath`), then `kubectl apply -f -` of generatePod's pod: a GET, then a
 * create carrying kubectl's last-applied annotation. Resolves with the pod's uid.
 */
async function corralStart(member: string): Promise<string> {
	const pod = corralPod(member, await recordedSpec(member));
	expect(await c.api.get('pods', member)).toBeUndefined();
	pod.metadata.annotations = {
		'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(pod)}\n`,
	};
	const made = await c.api.create('pods', pod);
	return made.metadata.uid!;
}

async function labelsOf(name: string): Promise<Record<string, string>> {
	return (await c.api.get('pods', name))?.metadata.labels ?? {};
}

async function adoptedEvents(member: string): Promise<KubeObject[]> {
	const events = await c.api.list('events');
	return events.filter(
		(e) =>
			(e as { reason?: string }).reason === 'Adopted' &&
			(e as { involvedObject?: { name?: string } }).involvedObject?.name === `${member}-data`,
	);
}

describe('corral ct stop + corral ct start on members of a pool', () => {
	it(
		'adopts the pod Corral started, claimed or not: no stranger, a clean reconcile, the holder can release',
		async () => {
			const ctx = c.context();
			await apply(ctx, 'ci', poolSpec({ size: 2 }));
			await waitReady(ctx, 'ci', 2);
			const claimed = await claim(ctx, 'ci', 'alice@example.com');
			const held = claimed.member;
			const free = held === 'ci-1' ? 'ci-2' : 'ci-1';

			// Corral stops and starts both members (one unclaimed, one alice's), as its CLI does.
			await Promise.all([corralStop(free), corralStop(held)]);
			const [freeUid, heldUid] = await Promise.all([corralStart(free), corralStart(held)]);
			expect(await labelsOf(free)).toEqual({ 'corral.dev/ct': 'true', 'corral.dev/ct-name': free });

			// Read only: the members are not a stranger's, and nothing is written.
			const before = await readPool(ctx, 'ci');
			for (const m of before.members) {
				expect(m.foreign).toEqual([]);
				expect(m.state).not.toBe('Stopped');
			}
			expect(await labelsOf(free)).toEqual({ 'corral.dev/ct': 'true', 'corral.dev/ct-name': free });

			const r = await reconcile(ctx, 'ci');
			expect(r.errors).toEqual([]);
			for (const [member, uid] of [
				[free, freeUid],
				[held, heldUid],
			] as const) {
				const pod = await c.api.get('pods', member);
				// the very pod Corral made, not a replacement
				expect(pod?.metadata.uid).toBe(uid);
				expect(pod?.metadata.labels).toMatchObject({
					'corral.dev/vdi-ct-pool': 'ci',
					'corral.dev/vdi-ct-member': member,
					'corral.dev/ct': 'true',
					'corral.dev/ct-name': member,
				});
				const pvc = await c.api.get('persistentvolumeclaims', `${member}-data`);
				expect(pod?.metadata.labels?.['corral.dev/vdi-ct-source']).toBe(
					pvc?.metadata.labels?.['corral.dev/vdi-ct-source'],
				);
				await waitFor(async () => (await adoptedEvents(member)).length > 0, {
					what: `an Adopted Event on ${member}-data`,
				});
			}
			// Counted for drift like any member: the pod matches its source, so nothing drifted.
			await waitReady(ctx, 'ci', 2);
			const after = await readPool(ctx, 'ci');
			expect(after.members.map((m) => [m.name, m.drifted, m.foreign.length])).toEqual([
				['ci-1', false, 0],
				['ci-2', false, 0],
			]);
			expect(after.members.find((m) => m.name === free)?.free).toBe(true);
			expect((await reconcile(ctx, 'ci')).errors).toEqual([]);

			// The holder's own release works and makes the member again.
			const done = await release(ctx, 'ci', held, 'alice@example.com');
			expect(done.released).toBe(true);
			expect(done.recreated).toBe(true);
			expect((await c.api.get('pods', held))?.metadata.uid).not.toBe(heldUid);
		},
		STOP_MS * 2,
	);

	it(
		'a claim takes a member Corral started before any reconcile adopted it',
		async () => {
			const ctx = await stoppedMember('cj');
			const uid = await corralStart('cj-1');
			const got = await claim(ctx, 'cj', 'bob@example.com');
			expect(got.member).toBe('cj-1');
			expect(got.started).toBe(false);
			const pod = await c.api.get('pods', 'cj-1');
			expect(pod?.metadata.uid).toBe(uid);
			expect(pod?.metadata.labels?.['corral.dev/vdi-ct-pool']).toBe('cj');
			expect((await release(ctx, 'cj', 'cj-1', 'bob@example.com')).released).toBe(true);
		},
		STOP_MS * 2,
	);

	it(
		'judges an adopted pod for drift like any member: a claim passes it by, reconcile replaces it',
		async () => {
			const ctx = c.context();
			await apply(ctx, 'cd', poolSpec({ size: 2 }));
			await waitReady(ctx, 'cd', 2);
			expect((await claim(ctx, 'cd', 'hal@example.com')).member).toBe('cd-1');
			await corralStop('cd-2');
			// `corral ct scale cd-2 --mem 128Mi` on the stopped CT: a JSON patch of the annotation.
			const spec = await recordedSpec('cd-2');
			await c.api.patch(
				'persistentvolumeclaims',
				'cd-2-data',
				[
					{
						op: 'replace',
						path: '/metadata/annotations/corral.ct~1spec',
						value: JSON.stringify({ ...spec, mem: '128Mi' }),
					},
				],
				{ type: 'application/json-patch+json' },
			);
			const uid = await corralStart('cd-2');
			// The claim tries cd-2 (the list shows it Stopped), adopts it, sees it drifted: not free.
			const none = await poolError(claim(ctx, 'cd', 'ivy@example.com'));
			expect(none.kind).toBe('no-free');
			expect(none.message).toContain('drifted 1');
			const pod = await c.api.get('pods', 'cd-2');
			expect(pod?.metadata.uid).toBe(uid);
			expect(pod?.metadata.labels?.['corral.dev/vdi-ct-pool']).toBe('cd');
			expect(await c.api.get('leases', 'corral-vdi-ct-cd-2')).toBeUndefined();
			const pvc = await c.api.get('persistentvolumeclaims', 'cd-2-data');
			expect(pvc?.metadata.annotations?.['corral.dev/vdi-assigned-to']).toBeUndefined();
			const before = (await readPool(ctx, 'cd')).members.find((m) => m.name === 'cd-2');
			expect(before?.drifted).toBe(true);
			expect(before?.drift.join('; ')).toContain('memory');
			const r = await reconcile(ctx, 'cd');
			expect(r.actions).toContainEqual(
				expect.objectContaining({ member: 'cd-2', step: 'replace', ok: true }),
			);
			expect((await c.api.get('pods', 'cd-2'))?.metadata.uid).not.toBe(uid);
		},
		STOP_MS * 2,
	);

	it(
		'leaves an unlabelled pod that mounts another PVC a stranger: not adopted, not free',
		async () => {
			const ctx = await stoppedMember('ck');
			const other = corralPod('ck-1', await recordedSpec('ck-1'));
			(other as unknown as { spec: { volumes: unknown[] } }).spec.volumes = [
				{ name: 'data', persistentVolumeClaim: { claimName: 'payroll-data' } },
			];
			await c.api.create('pods', other);
			const r = await reconcile(ctx, 'ck');
			expect(r.errors.join('\n')).toContain("ck-1: a pod of that name is not this pool's");
			expect(await labelsOf('ck-1')).toEqual({
				'corral.dev/ct': 'true',
				'corral.dev/ct-name': 'ck-1',
			});
			const snap = await readPool(ctx, 'ck');
			expect(snap.members[0]?.free).toBe(false);
			expect(await adoptedEvents('ck-1')).toEqual([]);
		},
		STOP_MS * 2,
	);
});

/** Corral's console Service of a CT (pkg/ct generateService): no labels, selects its ct-name. */
function corralService(member: string): KubeObject {
	return {
		apiVersion: 'v1',
		kind: 'Service',
		metadata: {
			name: `${member}-svc`,
			annotations: { 'tailscale.com/expose': 'true', 'tailscale.com/hostname': `${member}-ct` },
		},
		spec: {
			type: 'ClusterIP',
			selector: { 'corral.dev/ct-name': member },
			ports: [{ port: 22, targetPort: 22, name: 'port-22', protocol: 'TCP' }],
		},
	} as unknown as KubeObject;
}

async function statusErrors(pool: string): Promise<string[]> {
	const cm = await c.api.get('configmaps', `corral-vdi-ctpool-${pool}`);
	const data = (cm as { data?: { status?: string } } | undefined)?.data;
	return (JSON.parse(data?.status ?? '{}') as { errors?: string[] }).errors ?? [];
}

describe("Corral's console Service under exactly the seed's permissions (services delete only)", () => {
	it('the release completes and says, on stderr and in the status errors, that it may still route to the member', async () => {
		const ctx = c.context();
		await apply(ctx, 'cs', poolSpec({ size: 1 }));
		await waitReady(ctx, 'cs', 1);
		await claim(ctx, 'cs', 'dana@example.com');
		const svc = await c.api.create('services', corralService('cs-1'));
		const seed = await c.grant(
			'seed',
			roleRules({ services: false }).flatMap((g) => g.rules),
		);
		const env = defaultEnv();
		const r = await ctpool(['release', 'cs', 'cs-1', 'dana@example.com', '--kubeconfig', seed], {
			env,
		});
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('released cs-1');
		expect(r.stderr).toContain('Service cs-1-svc could not be read (no get on services)');
		expect(r.stderr).toContain('it may still route to cs-1');
		expect(r.stderr).toContain('Grant get on services (ctpool rbac prints it)');
		expect((await c.api.get('services', 'cs-1-svc'))?.metadata.uid).toBe(svc.metadata.uid);

		const again = await ctpool(['reconcile', 'cs', '--kubeconfig', seed], { env });
		expect(again.code).toBe(1);
		const errors = await statusErrors('cs');
		expect(errors.join('\n')).toContain(
			'cs-1: Service cs-1-svc could not be read when cs-1 was last released or replaced (no get on services), so it was left in place and may still route to cs-1',
		);

		// With get on services (ctpool rbac's Role), ctpool proves it is cs-1's and removes it.
		const full = await c.grant(
			'full',
			roleRules({}).flatMap((g) => g.rules),
		);
		const fixed = await ctpool(['reconcile', 'cs', '--kubeconfig', full], { env });
		expect(fixed.stderr).toBe('');
		expect(fixed.code).toBe(0);
		expect(await c.api.get('services', 'cs-1-svc')).toBeUndefined();
		expect(await statusErrors('cs')).toEqual([]);
		const pvc = await c.api.get('persistentvolumeclaims', 'cs-1-data');
		expect(pvc?.metadata.annotations?.['corral.dev/vdi-service-unverified']).toBeUndefined();
	});

	it('ctpool rbac explains the choice', async () => {
		const r = await ctpool(['rbac', '--help']);
		expect(r.stdout).toContain("get on Services is beyond the seed's list");
		expect(r.stdout).toContain('may\nstill route to the member');
		const yaml = await ctpool(['rbac']);
		expect(yaml.stdout).toContain('may still route to the member');
	});
});

describe("an older Corral broker's claim (Lease corral-vdi-<member>, or the label on the PVC)", () => {
	it("makes the member not free, shows the holder as Corral's, is named in the status errors, and is never written", async () => {
		const ctx = c.context();
		await apply(ctx, 'co', poolSpec({ size: 3 }));
		await waitReady(ctx, 'co', 3);
		const now = formatMicroTime(Date.now());
		const older = await c.api.create('leases', {
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: {
				name: 'corral-vdi-co-1',
				labels: { 'corral.dev/vdi-pool': 'co', 'corral.dev/vdi-member': 'co-1' },
			},
			spec: {
				holderIdentity: 'carol@example.com',
				acquireTime: now,
				renewTime: now,
				leaseDurationSeconds: 3600,
			},
		} as unknown as KubeObject);
		const labelled = await c.api.patch('persistentvolumeclaims', 'co-2-data', {
			metadata: { labels: { 'corral.dev/vdi-assigned-to': 'dave' } },
		});
		const pvc1 = await c.api.get('persistentvolumeclaims', 'co-1-data');

		const snap = await readPool(ctx, 'co');
		const [m1, m2] = snap.members;
		expect([m1?.free, m1?.corralHolder, m1?.corralClaim]).toEqual([
			false,
			'carol@example.com',
			'Lease corral-vdi-co-1',
		]);
		expect([m2?.free, m2?.corralHolder, m2?.corralClaim]).toEqual([
			false,
			'dave',
			'label corral.dev/vdi-assigned-to on PVC co-2-data',
		]);
		expect(snap.counts.claimed).toBe(2);

		// The claim path never hands them out.
		expect((await claim(ctx, 'co', 'erin@example.com')).member).toBe('co-3');
		const none = await poolError(claim(ctx, 'co', 'frank@example.com'));
		expect(none.kind).toBe('no-free');
		expect(none.message).toContain('claimed 3');

		// A new image: reconcile replaces neither (nor the claimed co-3), and says why.
		await apply(ctx, 'co', poolSpec({ size: 3, image: 'ghcr.io/example/desktop:2' }));
		const r = await reconcile(ctx, 'co');
		const text = r.errors.join('\n');
		expect(text).toContain(
			"co-1: claimed by carol@example.com through an older Corral broker's claim (Lease corral-vdi-co-1); ctpool does not hand it out, replace it or change that claim",
		);
		expect(text).toContain("co-2: claimed by dave through an older Corral broker's claim");
		expect((await c.api.get('persistentvolumeclaims', 'co-1-data'))?.metadata.uid).toBe(
			pvc1?.metadata.uid,
		);
		const lease = await c.api.get('leases', 'corral-vdi-co-1');
		expect(lease?.metadata.resourceVersion).toBe(older.metadata.resourceVersion);
		const pvc2 = await c.api.get('persistentvolumeclaims', 'co-2-data');
		expect(pvc2?.metadata.uid).toBe(labelled.metadata.uid);
		expect(pvc2?.metadata.labels?.['corral.dev/vdi-assigned-to']).toBe('dave');

		// Shown as Corral's: status and find.
		const status = await ctpool(['status', 'co', ...c.kc]);
		expect(status.stdout).toContain('carol@example.com (Corral)');
		expect(status.stdout).toContain('corral-claim');
		const found = await ctpool(['find', 'carol', '-o', 'json', ...c.kc]);
		expect(JSON.parse(found.stdout).items).toMatchObject([
			{ pool: 'co', member: 'co-1', holder: 'carol@example.com (Corral)' },
		]);

		// A ctpool claim on it as well (from before this fix): release refuses, changing nothing.
		await putLease(c, 'co', 'co-1', 'gina@example.com', Date.now(), 3600);
		const refused = await poolError(release(ctx, 'co', 'co-1', 'gina@example.com'));
		expect(refused.message).toContain(
			"through an older Corral broker's claim (Lease corral-vdi-co-1)",
		);
		expect(refused.message).toContain('kubectl delete lease corral-vdi-co-1');
		expect((await c.api.get('persistentvolumeclaims', 'co-1-data'))?.metadata.uid).toBe(
			pvc1?.metadata.uid,
		);
		expect((await c.api.get('leases', 'corral-vdi-co-1'))?.metadata.resourceVersion).toBe(
			older.metadata.resourceVersion,
		);
	});
});
