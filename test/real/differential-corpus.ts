/**
 * The differential test's corpus: one list of requests, each run on both clusters in turn.
 * A case's `view` picks what is compared when the whole body moves with time (a pod's
 * status once a node runs it, a list's items).
 */

import type { ApiAnswer, KubeObject, ObjectApi } from '../support/object-api.js';
import { resourcePath } from '../support/object-api.js';

/** One cluster as the corpus sees it. */
export interface Side {
	name: 'sim' | 'real';
	/** The admin. */
	api: ObjectApi;
	/** A ServiceAccount with no rights. */
	nobody: ObjectApi;
	ns: string;
	/** What earlier cases kept (resourceVersions, uids), per side. */
	saved: Record<string, string>;
}

/** One request of the corpus. */
export interface CorpusCase {
	id: string;
	run(side: Side): Promise<ApiAnswer>;
	/** What of the body is compared (default: all of it). */
	view?(body: unknown): unknown;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? (v as Rec) : {});
const meta = (v: unknown): Rec => rec(rec(v).metadata);

const LABELS = { 'corral.dev/vdi-ct-pool': 'diff', 'corral.dev/vdi-ct-member': 'diff-1' };
const MICRO = '2026-11-29T10:00:00.123456Z';

/** The kinds ctpool touches, each with a valid object. */
const KINDS: Record<string, { short: string; make(name: string, ns: string): KubeObject }> = {
	configmaps: {
		short: 'cm',
		make: (name) => ({
			apiVersion: 'v1',
			kind: 'ConfigMap',
			metadata: { name, labels: { ...LABELS } },
			data: { spec: '{"image":"ghcr.io/example/desktop:1","size":1}' },
		}),
	},
	persistentvolumeclaims: {
		short: 'pvc',
		make: (name) => ({
			apiVersion: 'v1',
			kind: 'PersistentVolumeClaim',
			metadata: { name, labels: { ...LABELS } },
			spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
		}),
	},
	pods: {
		short: 'pod',
		make: (name) => ({
			apiVersion: 'v1',
			kind: 'Pod',
			metadata: { name, labels: { ...LABELS } },
			spec: {
				terminationGracePeriodSeconds: 2,
				containers: [
					{
						name: 'ct',
						image: 'ghcr.io/example/desktop:1',
						command: ['sleep', 'infinity'],
						stdin: true,
						tty: true,
						resources: {
							requests: { cpu: '1', memory: '64Mi' },
							limits: { cpu: '1', memory: '64Mi' },
						},
					},
				],
			},
		}),
	},
	services: {
		short: 'svc',
		make: (name) => ({
			apiVersion: 'v1',
			kind: 'Service',
			metadata: { name, labels: { ...LABELS } },
			spec: { selector: { 'corral.dev/ct-name': name }, ports: [{ port: 22 }] },
		}),
	},
	leases: {
		short: 'lease',
		make: (name) => ({
			apiVersion: 'coordination.k8s.io/v1',
			kind: 'Lease',
			metadata: { name, labels: { ...LABELS } },
			spec: {
				holderIdentity: 'alice@example.com',
				leaseDurationSeconds: 3600,
				acquireTime: MICRO,
				renewTime: MICRO,
				leaseTransitions: 0,
			},
		}),
	},
	events: {
		short: 'ev',
		make: (name, ns) => ({
			apiVersion: 'v1',
			kind: 'Event',
			metadata: { name },
			involvedObject: { kind: 'ConfigMap', name: 'corral-vdi-ctpool-diff', namespace: ns },
			reason: 'Created',
			message: 'created diff-1 by test-admin',
			type: 'Normal',
			source: { component: 'ctpool' },
			firstTimestamp: '2026-11-29T10:00:00Z',
			lastTimestamp: '2026-11-29T10:00:00Z',
			count: 1,
		}),
	},
};

/** A pod's or PVC's view without what its node, scheduler or provisioner fill in over time. */
function settled(body: unknown): unknown {
	const b = rec(body);
	if (b.kind !== 'Pod' && b.kind !== 'PersistentVolumeClaim') return body;
	const { status: _status, ...rest } = b;
	const spec = { ...rec(b.spec) };
	delete spec.nodeName;
	delete spec.volumeName;
	const metadata = { ...meta(b) };
	const annotations = { ...rec(metadata.annotations) };
	for (const k of Object.keys(annotations))
		if (k.startsWith('pv.kubernetes.io/') || k.startsWith('volume.')) delete annotations[k];
	if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
	else delete metadata.annotations;
	return { ...rest, metadata, spec };
}

/** A list's kind and item names (and whether it goes on). */
function listView(body: unknown): unknown {
	const b = rec(body);
	if (!Array.isArray(b.items)) return body;
	return {
		kind: b.kind,
		apiVersion: b.apiVersion,
		names: (b.items as unknown[]).map((i) => meta(i).name),
		more: Boolean(meta(b).continue),
	};
}

/**
 * A watch's events: type and object name, in order. A pod's and a PVC's MODIFIED events
 * are left out: how many a node, the scheduler or a provisioner cause is theirs to choose.
 * So is when a pod's or PVC's DELETED comes (a finalizer's controller removes it), so their
 * events are compared object by object, each object's own events in order.
 */
function watchView(body: unknown): unknown {
	// One event is one line of JSON, which the client parsed whole.
	const events =
		typeof body === 'string'
			? body
					.split('\n')
					.filter((l) => l.trim())
					.map((l) => JSON.parse(l) as { type: string; object: Rec })
			: rec(body).type !== undefined
				? [body as { type: string; object: Rec }]
				: undefined;
	if (!events) return rec(body).kind === 'Status' ? body : listView(body);
	const controllerTimed = (e: { object: Rec }) =>
		e.object.kind === 'Pod' || e.object.kind === 'PersistentVolumeClaim';
	const kept = events.filter((e) => e.type !== 'MODIFIED' || !controllerTimed(e));
	const byObject = kept.every((e) => e.type !== 'ERROR' && controllerTimed(e))
		? [...kept].sort((a, b) =>
				String(meta(a.object).name).localeCompare(String(meta(b.object).name)),
			)
		: kept;
	return byObject.map((e) => (e.type === 'ERROR' ? e : `${e.type} ${meta(e.object).name}`));
}

/**
 * A GET of an object just deleted, as gone or not: a PVC with the pvc-protection finalizer,
 * which the controller manager lifts a moment later when no pod uses it, counts as gone.
 */
async function goneOrGoing(side: Side, path: string): Promise<ApiAnswer> {
	const a = await side.api.request('GET', path);
	const finishing =
		a.status === 200 &&
		rec(a.body).kind === 'PersistentVolumeClaim' &&
		meta(a.body).deletionTimestamp !== undefined;
	return finishing || a.status === 404 ? { ...a, status: 404, body: 'gone' } : a;
}

function withLabel(obj: unknown, key: string, value: string): KubeObject {
	const o = structuredClone(obj) as KubeObject;
	o.metadata.labels = { ...(o.metadata.labels ?? {}), [key]: value };
	return o;
}

function kindCases(resource: string): CorpusCase[] {
	const { short, make } = KINDS[resource]!;
	const name = `diff-${short}`;
	const path = (side: Side, n = name) => resourcePath(resource, side.ns, n);
	const coll = (side: Side) => resourcePath(resource, side.ns);
	const id = (what: string) => `${short}/${what}`;
	const post = (side: Side, body: unknown, query = {}) =>
		side.api.request('POST', coll(side), { body, query });
	const cases: CorpusCase[] = [
		{
			id: id('create'),
			async run(side) {
				const a = await post(side, make(name, side.ns));
				side.saved[`${short}.rv0`] = String(meta(a.body).resourceVersion ?? '');
				side.saved[`${short}.uid`] = String(meta(a.body).uid ?? '');
				return a;
			},
		},
		{ id: id('create again'), run: (side) => post(side, make(name, side.ns)) },
		{ id: id('get'), run: (side) => side.api.request('GET', path(side)), view: settled },
		{ id: id('get missing'), run: (side) => side.api.request('GET', path(side, `${name}-none`)) },
		{
			id: id('list by label'),
			run: (side) =>
				side.api.request('GET', coll(side), {
					query: { labelSelector: 'corral.dev/vdi-ct-pool=diff' },
				}),
			view: listView,
		},
		{
			id: id('list by set label'),
			run: (side) =>
				side.api.request('GET', coll(side), {
					query: { labelSelector: 'corral.dev/vdi-ct-pool in (diff,other),!nothing' },
				}),
			view: listView,
		},
		{
			id: id('list limit 1'),
			run: (side) => side.api.request('GET', coll(side), { query: { limit: 1 } }),
			view: listView,
		},
		{
			id: id('list by name field'),
			run: (side) =>
				side.api.request('GET', coll(side), { query: { fieldSelector: `metadata.name=${name}` } }),
			view: listView,
		},
		{
			id: id('list by unknown field'),
			run: (side) =>
				side.api.request('GET', coll(side), { query: { fieldSelector: 'spec.nothing=x' } }),
		},
		{
			id: id('list by bad label selector'),
			run: (side) => side.api.request('GET', coll(side), { query: { labelSelector: 'a in b' } }),
		},
		{
			id: id('list resourceVersionMatch without resourceVersion'),
			run: (side) =>
				side.api.request('GET', coll(side), { query: { resourceVersionMatch: 'NotOlderThan' } }),
		},
		{
			id: id('merge patch'),
			run: (side) =>
				side.api.request('PATCH', path(side), {
					body: { metadata: { labels: { patched: 'merge' } } },
					contentType: 'application/merge-patch+json',
				}),
			view: settled,
		},
		{
			id: id('json patch'),
			run: (side) =>
				side.api.request('PATCH', path(side), {
					body: [{ op: 'add', path: '/metadata/annotations', value: { 'corral.dev/x': 'json' } }],
					contentType: 'application/json-patch+json',
				}),
			view: settled,
		},
		{
			id: id('json patch test fails'),
			run: (side) =>
				side.api.request('PATCH', path(side), {
					body: [{ op: 'test', path: '/metadata/name', value: 'other' }],
					contentType: 'application/json-patch+json',
				}),
		},
		{
			id: id('strategic merge patch'),
			run: (side) =>
				side.api.request('PATCH', path(side), {
					body: { metadata: { labels: { patched: 'strategic' } } },
					contentType: 'application/strategic-merge-patch+json',
				}),
			view: settled,
		},
		{
			id: id('patch of an unsupported type'),
			run: (side) =>
				side.api.request('PATCH', path(side), { body: 'x', contentType: 'text/plain' }),
		},
		{
			id: id('patch of a missing object'),
			run: (side) =>
				side.api.request('PATCH', path(side, `${name}-none`), {
					body: { metadata: { labels: { a: 'b' } } },
					contentType: 'application/merge-patch+json',
				}),
		},
		{
			id: id('merge patch with a stale resourceVersion'),
			run: (side) =>
				side.api.request('PATCH', path(side), {
					body: { metadata: { resourceVersion: side.saved[`${short}.rv0`], labels: { a: 'b' } } },
					contentType: 'application/merge-patch+json',
				}),
		},
		{
			id: id('update with a stale resourceVersion'),
			async run(side) {
				const current = (await side.api.request('GET', path(side))).body as KubeObject;
				const stale = withLabel(current, 'put', 'stale');
				stale.metadata.resourceVersion = side.saved[`${short}.rv0`];
				return side.api.request('PUT', path(side), { body: stale });
			},
		},
		{
			id: id('update without a resourceVersion'),
			async run(side) {
				const current = (await side.api.request('GET', path(side))).body as KubeObject;
				const next = withLabel(current, 'put', 'unconditional');
				delete next.metadata.resourceVersion;
				return side.api.request('PUT', path(side), { body: next });
			},
			view: settled,
		},
		{
			id: id('update of another name than the path'),
			async run(side) {
				const current = (await side.api.request('GET', path(side))).body as KubeObject;
				return side.api.request('PUT', path(side, `${name}-other`), { body: current });
			},
		},
		{
			id: id('create with an unknown field, strict'),
			run: (side) =>
				post(side, { ...make(`${name}-strict`, side.ns), extra: 1 }, { fieldValidation: 'Strict' }),
		},
		{
			id: id('create with a duplicate field, strict'),
			run: (side) =>
				side.api.request('POST', coll(side), {
					body: JSON.stringify(make(`${name}-dup`, side.ns)).replace(
						'"metadata":{',
						`"metadata":{"name":"${name}-dup",`,
					),
					query: { fieldValidation: 'Strict' },
				}),
		},
		{
			id: id('create with an unknown field, ignore'),
			async run(side) {
				const a = await post(
					side,
					{ ...make(`${name}-ign`, side.ns), extra: 1 },
					{ fieldValidation: 'Ignore' },
				);
				await side.api.request('DELETE', path(side, `${name}-ign`), {
					body: { gracePeriodSeconds: 0 },
				});
				return a;
			},
			view: settled,
		},
		{
			id: id('create dry run'),
			run: (side) => post(side, make(`${name}-dry`, side.ns), { dryRun: 'All' }),
			view: settled,
		},
		{
			id: id('get after a dry run create'),
			run: (side) => side.api.request('GET', path(side, `${name}-dry`)),
		},
		{
			id: id('create with a bad dryRun value'),
			run: (side) => post(side, make(`${name}-dry2`, side.ns), { dryRun: 'true' }),
		},
		{
			id: id('create with an invalid name'),
			run: (side) => post(side, make('Bad_Name', side.ns)),
		},
		{
			id: id('create with another namespace in the body'),
			run: (side) => {
				const o = make(`${name}-ns`, side.ns);
				o.metadata.namespace = 'elsewhere';
				return post(side, o);
			},
		},
		{
			id: id('create in a missing namespace'),
			run: (side) =>
				side.api.request('POST', resourcePath(resource, 'no-such-namespace'), {
					body: make(`${name}-nons`, side.ns),
				}),
		},
		{
			id: id('delete dry run'),
			run: (side) => side.api.request('DELETE', path(side), { query: { dryRun: 'All' } }),
			view: settled,
		},
		{
			id: id('delete dry run in the options'),
			run: (side) => side.api.request('DELETE', path(side), { body: { dryRun: ['All'] } }),
			view: settled,
		},
		{
			// With DeleteOptions in the body, the server reads no query parameter: this deletes.
			id: id('delete with dryRun in the query and options in the body'),
			async run(side) {
				await post(side, make(`${name}-qb`, side.ns));
				await side.api.request('DELETE', path(side, `${name}-qb`), {
					query: { dryRun: 'All' },
					body: { gracePeriodSeconds: 0 },
				});
				return goneOrGoing(side, path(side, `${name}-qb`));
			},
		},
		{
			id: id('delete with a uid precondition that fails'),
			run: (side) =>
				side.api.request('DELETE', path(side), {
					body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
				}),
		},
		{
			id: id('delete with a resourceVersion precondition that fails'),
			run: (side) =>
				side.api.request('DELETE', path(side), {
					body: { preconditions: { resourceVersion: side.saved[`${short}.rv0`] } },
				}),
		},
		{
			id: id('watch from the create'),
			run: (side) =>
				side.api.request('GET', coll(side), {
					query: {
						watch: 'true',
						resourceVersion: side.saved[`${short}.rv0`],
						timeoutSeconds: 1,
						labelSelector: 'corral.dev/vdi-ct-pool=diff',
					},
				}),
			view: watchView,
		},
		{
			id: id('delete'),
			run: (side) =>
				side.api.request('DELETE', path(side), {
					body: { preconditions: { uid: side.saved[`${short}.uid`] } },
				}),
			view: settled,
		},
		{
			id: id('get after delete'),
			run: (side) => goneOrGoing(side, path(side)),
			view: settled,
		},
		{
			id: id('delete missing'),
			run: (side) => side.api.request('DELETE', path(side, `${name}-none`)),
		},
		{ id: id('forbidden get'), run: (side) => side.nobody.request('GET', path(side)) },
		{ id: id('forbidden list'), run: (side) => side.nobody.request('GET', coll(side)) },
		{
			id: id('forbidden watch'),
			run: (side) => side.nobody.request('GET', coll(side), { query: { watch: '1' } }),
		},
		{
			id: id('forbidden create'),
			run: (side) => side.nobody.request('POST', coll(side), { body: make(`${name}-x`, side.ns) }),
		},
		{ id: id('forbidden delete'), run: (side) => side.nobody.request('DELETE', path(side)) },
	];
	return cases;
}

/** Requests beside the per-kind ones: discovery, the notes' facts, ctpool's own shapes. */
/**
 * A list of every namespace, a page at a time, in two namespaces one of whose names goes on
 * with "-" where the other ends: in what order the pages come (etcd keys by
 * `<namespace>/<name>`, so the longer name's objects first) and that none is lost.
 */
const pagedAcrossNamespaces: CorpusCase = {
	id: 'list every namespace a page at a time, namespaces named x and x-b',
	async run(side) {
		const namespaces = [`${side.ns}-pg`, `${side.ns}-pg-b`];
		const label = 'corral.dev/diff-across';
		for (const n of namespaces) {
			await side.api.request('POST', '/api/v1/namespaces', {
				body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } },
			});
			for (const name of ['c-0', 'c-1'])
				await side.api.request('POST', `/api/v1/namespaces/${n}/configmaps`, {
					body: {
						apiVersion: 'v1',
						kind: 'ConfigMap',
						metadata: { name, labels: { [label]: side.ns } },
					},
				});
		}
		const seen: string[] = [];
		let cont: string | undefined;
		let last: ApiAnswer;
		do {
			last = await side.api.request('GET', '/api/v1/configmaps', {
				query: { labelSelector: `${label}=${side.ns}`, limit: 1, continue: cont },
			});
			for (const item of (rec(last.body).items as unknown[] | undefined) ?? [])
				seen.push(`${meta(item).namespace}/${meta(item).name}`);
			cont = (meta(last.body).continue as string | undefined) || undefined;
		} while (cont && seen.length < 10);
		for (const n of namespaces) await side.api.request('DELETE', `/api/v1/namespaces/${n}`);
		return { ...last, body: { seen } };
	},
};

const EXTRA: CorpusCase[] = [
	pagedAcrossNamespaces,
	{
		id: 'version keys',
		run: (side) => side.api.request('GET', '/version'),
		view: (b) => Object.keys(rec(b)).sort(),
	},
	{
		id: 'core discovery',
		run: (side) => side.api.request('GET', '/api'),
		view: (b) => ({ kind: rec(b).kind, versions: rec(b).versions }),
	},
	{
		id: 'coordination discovery',
		run: (side) => side.api.request('GET', '/apis/coordination.k8s.io/v1'),
		view: (b) =>
			(rec(b).resources as Rec[]).find((r) => r.name === 'leases') ?? 'no leases resource',
	},
	{
		id: 'core pods discovery',
		run: (side) => side.api.request('GET', '/api/v1'),
		view: (b) =>
			(rec(b).resources as Rec[])
				.filter((r) =>
					['pods', 'pods/exec', 'pods/log', 'configmaps', 'persistentvolumeclaims'].includes(
						String(r.name),
					),
				)
				.map((r) => ({
					name: r.name,
					namespaced: r.namespaced,
					kind: r.kind,
					verbs: [...(r.verbs as string[])].sort(),
				}))
				.sort((a, b) => String(a.name).localeCompare(String(b.name))),
	},
	{
		id: 'lease with milliseconds',
		run: (side) =>
			side.api.request('POST', resourcePath('leases', side.ns), {
				body: {
					...KINDS.leases!.make('diff-ms', side.ns),
					spec: { holderIdentity: 'a', acquireTime: '2026-11-29T10:00:00.123Z' },
				},
			}),
		view: settled,
	},
	{
		id: 'lease with a negative duration',
		run: (side) =>
			side.api.request('POST', resourcePath('leases', side.ns), {
				body: {
					...KINDS.leases!.make('diff-neg', side.ns),
					spec: { holderIdentity: 'a', leaseDurationSeconds: -1 },
				},
			}),
	},
	{
		id: 'configmap with a non-string value',
		run: (side) =>
			side.api.request('POST', resourcePath('configmaps', side.ns), {
				body: { ...KINDS.configmaps!.make('diff-num', side.ns), data: { spec: 5 } },
			}),
	},
	{
		id: 'pod without containers',
		run: (side) =>
			side.api.request('POST', resourcePath('pods', side.ns), {
				body: {
					apiVersion: 'v1',
					kind: 'Pod',
					metadata: { name: 'diff-empty' },
					spec: { containers: [] },
				},
			}),
	},
	{
		id: 'pod with a cpu request above its limit',
		run: (side) => {
			const pod = KINDS.pods!.make('diff-cpu', side.ns) as KubeObject & {
				spec: { containers: Rec[] };
			};
			pod.spec.containers[0]!.resources = { requests: { cpu: '2' }, limits: { cpu: '1' } };
			return side.api.request('POST', resourcePath('pods', side.ns), { body: pod });
		},
	},
	{
		id: 'pvc without a size',
		run: (side) =>
			side.api.request('POST', resourcePath('persistentvolumeclaims', side.ns), {
				body: {
					...KINDS.persistentvolumeclaims!.make('diff-nosize', side.ns),
					spec: { accessModes: ['ReadWriteOnce'] },
				},
			}),
	},
	{
		id: 'service without ports',
		run: (side) =>
			side.api.request('POST', resourcePath('services', side.ns), {
				body: { ...KINDS.services!.make('diff-noports', side.ns), spec: { selector: { a: 'b' } } },
			}),
	},
	{
		id: 'list across namespaces by label',
		run: (side) =>
			side.api.request('GET', '/api/v1/configmaps', {
				query: { labelSelector: `corral.dev/vdi-ct-pool=diff-none-${side.ns}` },
			}),
		view: listView,
	},
	{
		id: 'watch with Python booleans',
		run: (side) =>
			side.api.request('GET', resourcePath('configmaps', side.ns), {
				query: { watch: 'True', timeoutSeconds: 1, labelSelector: 'corral.dev/vdi-ct-pool=none' },
			}),
		view: watchView,
	},
	{
		id: 'watch with a bad boolean',
		run: (side) =>
			side.api.request('GET', resourcePath('configmaps', side.ns), {
				query: { watch: 'yes', timeoutSeconds: 1 },
			}),
		view: watchView,
	},
	{
		id: 'self subject review',
		run: (side) =>
			side.nobody.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
				body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
			}),
		view: (b) => {
			const info = rec(rec(rec(b).status).userInfo);
			return { kind: rec(b).kind, username: info.username, groups: info.groups };
		},
	},
	{
		id: 'access review of a right it lacks',
		run: (side) =>
			side.nobody.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
				body: {
					apiVersion: 'authorization.k8s.io/v1',
					kind: 'SelfSubjectAccessReview',
					spec: {
						resourceAttributes: {
							namespace: side.ns,
							verb: 'delete',
							resource: 'pods',
						},
					},
				},
			}),
		view: (b) => ({ kind: rec(b).kind, allowed: rec(rec(b).status).allowed }),
	},
	{
		id: 'pvc protection finalizer',
		async run(side) {
			const a = await side.api.request('POST', resourcePath('persistentvolumeclaims', side.ns), {
				body: KINDS.persistentvolumeclaims!.make('diff-fin', side.ns),
			});
			await side.api.request('DELETE', resourcePath('persistentvolumeclaims', side.ns, 'diff-fin'));
			return a;
		},
		view: (b) => meta(b).finalizers,
	},
];

/** Every request, in order. */
export const CORPUS: CorpusCase[] = [...Object.keys(KINDS).flatMap(kindCases), ...EXTRA];
