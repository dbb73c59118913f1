import {
	ApiException,
	CoordinationV1Api,
	CoreV1Api,
	PatchStrategy,
	setHeaderOptions,
	type V1ConfigMap,
	V1MicroTime,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeConfigFor, simFetch, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const NS = 'corral';
const env = withSim();

async function clients() {
	const kc = await kubeConfigFor(env.sim);
	return { core: kc.makeApiClient(CoreV1Api), coord: kc.makeApiClient(CoordinationV1Api) };
}

/** The Status body of a failed client-node call. */
async function failure(
	p: Promise<unknown>,
): Promise<{ code: number; reason: string; message: string }> {
	try {
		await p;
	} catch (e) {
		if (e instanceof ApiException) {
			const body = JSON.parse(String(e.body)) as { reason: string; message: string };
			return { code: e.code, reason: body.reason, message: body.message };
		}
		throw e;
	}
	throw new Error('expected the call to fail');
}

function cm(name: string, labels: Record<string, string> = {}): V1ConfigMap {
	return { metadata: { name, labels }, data: { k: 'v' } };
}

describe('authentication and discovery', () => {
	it('answers 401 Unauthorized without the token, and with a wrong one', async () => {
		const none = await simFetch(env.cluster, '/api/v1/namespaces/corral/pods', { token: null });
		expect(none.status).toBe(401);
		expect(none.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
		const wrong = await simFetch(env.cluster, '/api/v1/namespaces', { token: 'nope' });
		expect(wrong.status).toBe(401);
		expect((await simFetch(env.cluster, '/healthz', { token: null })).text).toBe('ok');
	});

	it('serves /version, /api, /apis and the resource lists with short names', async () => {
		const v = (await simFetch(env.cluster, '/version')).json() as { gitVersion: string };
		expect(v.gitVersion).toMatch(/^v1\.32\.\d+$/);
		const api = await simFetch(env.cluster, '/api', {
			headers: {
				Accept:
					'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
			},
		});
		expect(api.headers.get('content-type')).toBe('application/json');
		expect(api.json()).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
		const v1 = (await simFetch(env.cluster, '/api/v1')).json() as {
			resources: { name: string; shortNames?: string[]; verbs: string[] }[];
		};
		const byName = new Map(v1.resources.map((r) => [r.name, r]));
		expect(byName.get('pods')?.shortNames).toEqual(['po']);
		expect(byName.get('persistentvolumeclaims')?.shortNames).toEqual(['pvc']);
		expect(byName.get('events')?.shortNames).toEqual(['ev']);
		expect(byName.has('pods/exec')).toBe(true);
		expect(byName.has('pods/log')).toBe(true);
		expect(byName.get('configmaps')?.verbs).toContain('watch');
		const coord = (await simFetch(env.cluster, '/apis/coordination.k8s.io/v1')).json() as {
			resources: { name: string; namespaced: boolean }[];
		};
		expect(coord.resources).toContainEqual(
			expect.objectContaining({ name: 'leases', namespaced: true }),
		);
	});

	it('creates the default and corral namespaces', async () => {
		const { core } = await clients();
		const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
		expect(names).toEqual(expect.arrayContaining(['default', 'corral']));
	});
});

describe('writes', () => {
	it('creates with 201, reads back, and answers 409 AlreadyExists with the real message', async () => {
		const { core } = await clients();
		const created = await core.createNamespacedConfigMap({ namespace: NS, body: cm('w-one') });
		expect(created.metadata?.uid).toBeTruthy();
		expect(created.metadata?.namespace).toBe(NS);
		const again = await failure(
			core.createNamespacedConfigMap({ namespace: NS, body: cm('w-one') }),
		);
		expect(again).toEqual({
			code: 409,
			reason: 'AlreadyExists',
			message: 'configmaps "w-one" already exists',
		});
		const missing = await failure(core.readNamespacedPod({ namespace: NS, name: 'foo' }));
		expect(missing).toEqual({ code: 404, reason: 'NotFound', message: 'pods "foo" not found' });
		const { coord } = await clients();
		const lease = await failure(coord.readNamespacedLease({ namespace: NS, name: 'x' }));
		expect(lease.message).toBe('leases.coordination.k8s.io "x" not found');
	});

	it('rejects a body namespace that differs from the URL with 400', async () => {
		const { core } = await clients();
		const body = { metadata: { name: 'w-ns', namespace: 'default' }, data: {} };
		const err = await failure(core.createNamespacedConfigMap({ namespace: NS, body }));
		expect(err.code).toBe(400);
		expect(err.message).toBe(
			'the namespace of the provided object does not match the namespace sent on the request',
		);
	});

	it('answers 422 Invalid for a pod without containers and a bad name', async () => {
		const { core } = await clients();
		const err = await failure(
			core.createNamespacedPod({
				namespace: NS,
				body: { metadata: { name: 'Bad_Pod' }, spec: { containers: [] } },
			}),
		);
		expect(err.code).toBe(422);
		expect(err.reason).toBe('Invalid');
		expect(err.message).toContain(
			'Pod "Bad_Pod" is invalid: [metadata.name: Invalid value: "Bad_Pod"',
		);
		expect(err.message).toContain('spec.containers: Required value');
	});

	it('conflicts on a stale resourceVersion; a no-op update keeps the RV', async () => {
		const { core } = await clients();
		const a = await core.createNamespacedConfigMap({ namespace: NS, body: cm('w-cas') });
		const b = await core.replaceNamespacedConfigMap({
			namespace: NS,
			name: 'w-cas',
			body: { ...a, data: { k: 'v2' } },
		});
		expect(Number(b.metadata?.resourceVersion)).toBeGreaterThan(
			Number(a.metadata?.resourceVersion),
		);
		const stale = await failure(
			core.replaceNamespacedConfigMap({
				namespace: NS,
				name: 'w-cas',
				body: { ...a, data: { k: 'v3' } },
			}),
		);
		expect(stale).toEqual({
			code: 409,
			reason: 'Conflict',
			message:
				'Operation cannot be fulfilled on configmaps "w-cas": the object has been modified; please apply your changes to the latest version and try again',
		});
		const same = await core.replaceNamespacedConfigMap({ namespace: NS, name: 'w-cas', body: b });
		expect(same.metadata?.resourceVersion).toBe(b.metadata?.resourceVersion);
	});

	it('applies merge, strategic-merge and JSON patches', async () => {
		const { core } = await clients();
		await core.createNamespacedConfigMap({ namespace: NS, body: cm('w-patch', { a: '1' }) });
		const merged = await core.patchNamespacedConfigMap(
			{ namespace: NS, name: 'w-patch', body: { metadata: { labels: { a: null, b: '2' } } } },
			setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
		);
		expect(merged.metadata?.labels).toEqual({ b: '2' });
		const json = await core.patchNamespacedConfigMap({
			namespace: NS,
			name: 'w-patch',
			body: [{ op: 'add', path: '/data/x', value: 'y' }],
		});
		expect(json.data).toEqual({ k: 'v', x: 'y' });
		const failed = await failure(
			core.patchNamespacedConfigMap({
				namespace: NS,
				name: 'w-patch',
				body: [{ op: 'test', path: '/data/x', value: 'nope' }],
			}),
		);
		expect(failed.code).toBe(422);

		const pod = await core.createNamespacedPod({
			namespace: NS,
			body: {
				metadata: { name: 'w-smp' },
				spec: {
					containers: [
						{ name: 'ct', image: 'busybox:1', env: [{ name: 'A', value: '1' }] },
						{ name: 'side', image: 'busybox:1' },
					],
				},
			},
		});
		expect(pod.status?.phase).toBe('Pending');
		const smp = await core.patchNamespacedPod(
			{
				namespace: NS,
				name: 'w-smp',
				body: { spec: { containers: [{ name: 'ct', image: 'busybox:2' }] } },
			},
			setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
		);
		expect(smp.spec?.containers.map((c) => `${c.name} ${c.image}`)).toEqual([
			'ct busybox:2',
			'side busybox:1',
		]);
		expect(smp.spec?.containers[0]?.env).toEqual([{ name: 'A', value: '1' }]);
		// like the real server: a pod's spec is immutable beyond images and a few fields
		const envChange = await failure(
			core.patchNamespacedPod(
				{
					namespace: NS,
					name: 'w-smp',
					body: { spec: { containers: [{ name: 'ct', env: [{ name: 'B', value: '2' }] }] } },
				},
				setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
			),
		);
		expect(envChange.code).toBe(422);
		expect(envChange.message).toContain(
			'Pod "w-smp" is invalid: spec: Forbidden: pod updates may not change fields other than',
		);
		const apply = await simFetch(env.cluster, '/api/v1/namespaces/corral/configmaps/w-patch', {
			method: 'PATCH',
			headers: { 'Content-Type': 'application/apply-patch+yaml' },
			body: 'data: {}',
		});
		expect(apply.status).toBe(415);
	});

	it('keeps status on a PUT of the main resource and writes it through /status', async () => {
		const { core } = await clients();
		const pvc = await core.createNamespacedPersistentVolumeClaim({
			namespace: NS,
			body: {
				metadata: { name: 'w-status' },
				spec: {
					accessModes: ['ReadWriteOnce'],
					resources: { requests: { storage: '1Gi' } },
					storageClassName: 'wait',
				},
			},
		});
		expect(pvc.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);
		const put = await core.replaceNamespacedPersistentVolumeClaim({
			namespace: NS,
			name: 'w-status',
			body: { ...pvc, status: { phase: 'Lost' } },
		});
		expect(put.status?.phase).toBe('Pending');
		const viaStatus = await core.replaceNamespacedPersistentVolumeClaimStatus({
			namespace: NS,
			name: 'w-status',
			body: { ...put, status: { phase: 'Lost' } },
		});
		expect(viaStatus.status?.phase).toBe('Lost');
	});

	it('checks delete preconditions (uid, resourceVersion) with 409 Conflict', async () => {
		const { core } = await clients();
		const a = await core.createNamespacedConfigMap({ namespace: NS, body: cm('w-del') });
		const byUid = await failure(
			core.deleteNamespacedConfigMap({
				namespace: NS,
				name: 'w-del',
				body: { preconditions: { uid: 'other' } },
			}),
		);
		expect(byUid.code).toBe(409);
		expect(byUid.reason).toBe('Conflict');
		const byRv = await failure(
			core.deleteNamespacedConfigMap({
				namespace: NS,
				name: 'w-del',
				body: { preconditions: { resourceVersion: '1' } },
			}),
		);
		expect(byRv.message).toContain('the ResourceVersion in the precondition (1) does not match');
		const status = await core.deleteNamespacedConfigMap({
			namespace: NS,
			name: 'w-del',
			body: {
				preconditions: { uid: a.metadata?.uid, resourceVersion: a.metadata?.resourceVersion },
				propagationPolicy: 'Background',
			},
		});
		expect(status).toMatchObject({
			status: 'Success',
			details: { name: 'w-del', kind: 'configmaps' },
		});
		expect(
			(await failure(core.readNamespacedConfigMap({ namespace: NS, name: 'w-del' }))).code,
		).toBe(404);
	});

	it('rejects Lease times that are not MicroTime (six fractional digits)', async () => {
		const res = await simFetch(
			env.cluster,
			'/apis/coordination.k8s.io/v1/namespaces/corral/leases',
			{
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({
					apiVersion: 'coordination.k8s.io/v1',
					kind: 'Lease',
					metadata: { name: 'w-lease' },
					spec: { holderIdentity: 'a', acquireTime: '2026-11-29T10:00:00.123Z' },
				}),
			},
		);
		expect(res.status).toBe(400);
		const { coord } = await clients();
		const ok = await coord.createNamespacedLease({
			namespace: NS,
			body: {
				metadata: { name: 'w-lease' },
				spec: { holderIdentity: 'a', leaseDurationSeconds: 60, acquireTime: new V1MicroTime() },
			},
		});
		expect(ok.spec?.holderIdentity).toBe('a');
	});
});

describe('lists', () => {
	it('pages with limit and continue at a consistent resourceVersion', async () => {
		const { core } = await clients();
		for (let i = 0; i < 7; i++) {
			await core.createNamespacedConfigMap({
				namespace: NS,
				body: cm(`page-${i}`, { set: 'paging' }),
			});
		}
		const first = await core.listNamespacedConfigMap({
			namespace: NS,
			labelSelector: 'set=paging',
			limit: 3,
		});
		expect(first.items.map((c) => c.metadata?.name)).toEqual(['page-0', 'page-1', 'page-2']);
		expect(first.metadata?.remainingItemCount).toBe(4);
		// a change after the first page does not show in later pages
		await core.deleteNamespacedConfigMap({ namespace: NS, name: 'page-5' });
		const second = await core.listNamespacedConfigMap({
			namespace: NS,
			labelSelector: 'set=paging',
			limit: 3,
			_continue: first.metadata?._continue,
		});
		expect(second.items.map((c) => c.metadata?.name)).toEqual(['page-3', 'page-4', 'page-5']);
		expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
		const third = await core.listNamespacedConfigMap({
			namespace: NS,
			labelSelector: 'set=paging',
			limit: 3,
			_continue: second.metadata?._continue,
		});
		expect(third.items.map((c) => c.metadata?.name)).toEqual(['page-6']);
		expect(third.metadata?._continue).toBeFalsy();
	});

	it("pages across namespaces in the order of etcd's keys, every object once, whatever changed between pages", async () => {
		const { core, coord } = await clients();
		// etcd's keys are <namespace>/<name>: pgs-b's come before pgs's ('-' sorts before '/')
		for (const ns of ['pgs', 'pgs-b']) {
			await core.createNamespace({ body: { metadata: { name: ns } } });
			for (let i = 0; i < 3; i++)
				await core.createNamespacedConfigMap({
					namespace: ns,
					body: cm(`c-${i}`, { set: 'across' }),
				});
		}
		const order = ['pgs-b/c-0', 'pgs-b/c-1', 'pgs-b/c-2', 'pgs/c-0', 'pgs/c-1', 'pgs/c-2'];
		/** Lists the set 2 a page; between pages, `between` writes something. */
		async function pages(between: (i: number) => Promise<unknown>): Promise<string[]> {
			const seen: string[] = [];
			let cont: string | undefined;
			for (let i = 0; ; i++) {
				const page = await core.listConfigMapForAllNamespaces({
					labelSelector: 'set=across',
					limit: 2,
					...(cont ? { _continue: cont } : {}),
				});
				for (const c of page.items) seen.push(`${c.metadata?.namespace}/${c.metadata?.name}`);
				cont = page.metadata?._continue;
				if (!cont) return seen;
				await between(i);
			}
		}
		// another resource written between pages (the list's resource as it was)
		const lease = (i: number) =>
			coord.createNamespacedLease({
				namespace: NS,
				body: { metadata: { name: `across-${i}-${Date.now()}` } },
			});
		expect(await pages(lease)).toEqual(order);
		// the list's resource itself written between pages (rebuilt at the list's revision)
		const other = (i: number) =>
			core.createNamespacedConfigMap({ namespace: 'pgs', body: cm(`other-${i}`) });
		expect(await pages(other)).toEqual(order);
	});

	it('filters by every label operator and by field selectors', async () => {
		const { core } = await clients();
		await core.createNamespacedConfigMap({
			namespace: NS,
			body: cm('sel-a', { tier: 'gold', pool: 'p' }),
		});
		await core.createNamespacedConfigMap({
			namespace: NS,
			body: cm('sel-b', { tier: 'silver', pool: 'p' }),
		});
		await core.createNamespacedConfigMap({ namespace: NS, body: cm('sel-c', { pool: 'p' }) });
		const names = async (labelSelector: string, fieldSelector?: string) =>
			(
				await core.listNamespacedConfigMap({ namespace: NS, labelSelector, fieldSelector })
			).items.map((c) => c.metadata?.name);
		expect(await names('pool=p,tier=gold')).toEqual(['sel-a']);
		expect(await names('pool==p,tier!=gold')).toEqual(['sel-b', 'sel-c']);
		expect(await names('pool=p,tier in (gold,silver)')).toEqual(['sel-a', 'sel-b']);
		expect(await names('pool=p,tier notin (gold)')).toEqual(['sel-b', 'sel-c']);
		expect(await names('pool=p,tier')).toEqual(['sel-a', 'sel-b']);
		expect(await names('pool=p,!tier')).toEqual(['sel-c']);
		expect(await names('pool=p', 'metadata.name=sel-b')).toEqual(['sel-b']);
		expect(await names('pool=p', 'metadata.name!=sel-b,metadata.namespace=corral')).toEqual([
			'sel-a',
			'sel-c',
		]);
		const bad = await failure(
			core.listNamespacedConfigMap({ namespace: NS, fieldSelector: 'data.k=v' }),
		);
		expect(bad).toEqual({
			code: 400,
			reason: 'BadRequest',
			message: '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"',
		});
	});

	it('selects pods by spec.nodeName and status.phase, also across namespaces', async () => {
		const { core } = await clients();
		await core.createNamespacedPod({
			namespace: NS,
			body: {
				metadata: { name: 'fs-pod', labels: { fs: 'x' } },
				spec: { containers: [{ name: 'ct', image: 'busybox:1' }] },
			},
		});
		const pod = await waitFor(
			async () => {
				const p = await core.readNamespacedPod({ namespace: NS, name: 'fs-pod' });
				return p.status?.phase === 'Running' ? p : undefined;
			},
			{ what: 'fs-pod Running' },
		);
		const node = pod.spec?.nodeName ?? '';
		const all = await core.listPodForAllNamespaces({
			fieldSelector: `spec.nodeName=${node},status.phase=Running`,
			labelSelector: 'fs=x',
		});
		expect(all.items.map((p) => p.metadata?.name)).toEqual(['fs-pod']);
		const none = await core.listPodForAllNamespaces({
			fieldSelector: 'status.phase=Failed',
			labelSelector: 'fs=x',
		});
		expect(none.items).toEqual([]);
	});

	it('answers 422 for resourceVersionMatch without resourceVersion', async () => {
		const res = await simFetch(
			env.cluster,
			'/api/v1/namespaces/corral/configmaps?resourceVersionMatch=NotOlderThan',
		);
		expect(res.status).toBe(422);
	});
});

describe('authorisation', () => {
	it('denies the configured verb/resource pairs in reviews and real requests', async () => {
		env.cluster.config.deny.push('delete pods');
		try {
			const review = await simFetch(
				env.cluster,
				'/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
				{
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({
						apiVersion: 'authorization.k8s.io/v1',
						kind: 'SelfSubjectAccessReview',
						spec: { resourceAttributes: { namespace: NS, verb: 'delete', resource: 'pods' } },
					}),
				},
			);
			expect(review.status).toBe(201);
			expect(review.json()).toMatchObject({
				status: { allowed: false, reason: expect.stringContaining('delete pods') },
			});
			const { core } = await clients();
			const err = await failure(core.deleteNamespacedPod({ namespace: NS, name: 'desk-1' }));
			expect(err).toEqual({
				code: 403,
				reason: 'Forbidden',
				message:
					'pods "desk-1" is forbidden: User "kubernetes-admin" cannot delete resource "pods" in API group "" in the namespace "corral"',
			});
			expect((await core.listNamespacedPod({ namespace: NS })).kind).toBe('PodList');
		} finally {
			env.cluster.config.deny.length = 0;
		}
	});
});
