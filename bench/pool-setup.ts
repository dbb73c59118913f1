/**
 * Making a benchmark pool fast, through the API with high concurrency: the definition
 * ConfigMap, then each member's PVC and pod exactly as the engine builds them, optional
 * claim Leases, and a wait until every pod is Running and Ready.
 */

import { buildPod, buildPvc } from '../source/engine/member-objects.js';
import { CLAIM_SECONDS, formatMicroTime } from '../source/pool/lease.js';
import {
	configMapName,
	leaseName,
	MEMBER_LABEL,
	memberName,
	POOL_LABEL,
	SPEC_KEY,
} from '../source/pool/names.js';
import { MAX_SIZE, type PoolSpec, serialiseSpec, sourceFields } from '../source/pool/spec.js';
import { waitFor } from '../test/support/wait.js';
import { type ApiClient, ApiError, mapLimit } from './api-client.js';

/** The source every benchmark pool uses: small requests, so thousands fit the simulated nodes. */
export const BENCH_SOURCE = {
	image: 'ghcr.io/example/desktop:1',
	cpu: '1',
	memory: '256Mi',
	disk: '1Gi',
	storageClass: '',
	privileged: false,
	init: false,
} as const;

/** The arguments of `ctpool apply` of a benchmark pool of `size` members in a namespace. */
export function applyArgs(pool: string, namespace: string, size: number): string[] {
	return [
		'apply',
		pool,
		'--image',
		BENCH_SOURCE.image,
		'--size',
		String(size),
		'--cpu',
		BENCH_SOURCE.cpu,
		'--mem',
		BENCH_SOURCE.memory,
		'--disk',
		BENCH_SOURCE.disk,
		'-n',
		namespace,
	];
}

/** The spec of a benchmark pool of `size` members. */
export function benchSpec(size: number): PoolSpec {
	return { ...BENCH_SOURCE, mode: 'ephemeral', size };
}

/**
 * The size a definition may hold for a pool of `members`: the members, capped at the
 * product's largest size (a bigger pool keeps the rest as above-size members).
 */
export function definableSize(members: number): number {
	return Math.min(members, MAX_SIZE);
}

/** Creates a namespace (an existing one is fine). */
export async function ensureNamespace(api: ApiClient, name: string): Promise<void> {
	const a = await api.request('POST', '/api/v1/namespaces', {
		apiVersion: 'v1',
		kind: 'Namespace',
		metadata: { name },
	});
	if (a.code !== 201 && a.code !== 409)
		throw new ApiError(a.code, a.text, `create namespace ${name}`);
}

/** The claim Lease of a member held by `holder`, labelled with its pool and member. */
export function leaseObject(pool: string, member: string, holder: string, now = Date.now()) {
	return {
		apiVersion: 'coordination.k8s.io/v1',
		kind: 'Lease',
		metadata: { name: leaseName(member), labels: { [POOL_LABEL]: pool, [MEMBER_LABEL]: member } },
		spec: {
			holderIdentity: holder,
			acquireTime: formatMicroTime(now),
			renewTime: formatMicroTime(now),
			leaseDurationSeconds: CLAIM_SECONDS,
		},
	};
}

/** The 2 x n objects of members 1..n (PVCs first, then pods), as the engine builds them. */
export function memberObjects(
	pool: string,
	namespace: string,
	from: number,
	to: number,
): Array<ReturnType<typeof buildPvc> | ReturnType<typeof buildPod>> {
	const src = sourceFields(BENCH_SOURCE);
	const pvcs = [];
	const pods = [];
	for (let i = from; i <= to; i++) {
		const m = memberName(pool, i);
		pvcs.push(buildPvc(pool, m, namespace, src));
		pods.push(buildPod(pool, m, namespace, src));
	}
	return [...pvcs, ...pods];
}

/** What makePool made. */
export interface PoolSetup {
	namespace: string;
	pool: string;
	members: number;
	/** The size written in the definition (members capped at the product's maximum). */
	size: number;
	/** Time to create every object (ms). */
	createMs: number;
	/** Time until every pod was Running and Ready (ms, from the start). */
	readyMs: number;
}

/** Options of makePool. */
export interface MakePoolOptions {
	namespace: string;
	pool: string;
	members: number;
	/** Members that get a claim Lease, each with its holder. */
	leases?: Array<{ member: string; holder: string }>;
	/** Requests in flight at once (default 32). */
	concurrency?: number;
	/** Give up waiting for Ready after this long (ms, default 180 000). */
	readyTimeoutMs?: number;
}

/** Creates a pool's definition, members and Leases through the API, then waits until all are Ready. */
export async function makePool(api: ApiClient, opts: MakePoolOptions): Promise<PoolSetup> {
	const { namespace, pool, members } = opts;
	const t0 = performance.now();
	await ensureNamespace(api, namespace);
	const size = definableSize(members);
	const ns = `/api/v1/namespaces/${namespace}`;
	await api.json('POST', `${ns}/configmaps`, {
		apiVersion: 'v1',
		kind: 'ConfigMap',
		metadata: { name: configMapName(pool), labels: { [POOL_LABEL]: pool } },
		data: { [SPEC_KEY]: serialiseSpec(benchSpec(size)) },
	});
	const objects = memberObjects(pool, namespace, 1, members);
	await mapLimit(objects, opts.concurrency ?? 32, (o) =>
		api.json(
			'POST',
			`${ns}/${o.kind === 'Pod' ? 'pods' : 'persistentvolumeclaims'}`,
			o as unknown as object,
		),
	);
	await mapLimit(opts.leases ?? [], opts.concurrency ?? 32, (l) =>
		api.json(
			'POST',
			`/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
			leaseObject(pool, l.member, l.holder),
		),
	);
	const createMs = performance.now() - t0;
	await waitPodsReady(api, namespace, pool, members, opts.readyTimeoutMs ?? 180_000);
	return { namespace, pool, members, size, createMs, readyMs: performance.now() - t0 };
}

interface PodList {
	items: Array<{
		status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
	}>;
}

/** How many of a pool's pods are Running with Ready=True. */
export async function readyPods(api: ApiClient, namespace: string, pool: string): Promise<number> {
	const list = await api.json<PodList>(
		'GET',
		`/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(`${POOL_LABEL}=${pool}`)}`,
	);
	return list.items.filter(
		(p) =>
			p.status?.phase === 'Running' &&
			p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
	).length;
}

/** Waits until `count` pods of the pool are Running and Ready. */
export async function waitPodsReady(
	api: ApiClient,
	namespace: string,
	pool: string,
	count: number,
	timeoutMs: number,
): Promise<void> {
	let ready = 0;
	await waitFor(
		async () => {
			ready = await readyPods(api, namespace, pool);
			return ready >= count;
		},
		{
			what: `${count} Ready pods of pool ${pool} in ${namespace}`,
			timeoutMs,
			intervalMs: 300,
			detail: () => `only ${ready} became Ready`,
		},
	);
}

/** A manifest for `kubectl create -f`: a stream of JSON documents, one object per line. */
export function manifestText(objects: readonly object[]): string {
	return `${objects.map((o) => JSON.stringify(o)).join('\n')}\n`;
}
