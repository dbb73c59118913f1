/**
 * The claim and release storms, run through ctpool's engine in one process (as a broker in
 * front of a pool would, the pool in the engine's watch-fed cache): N concurrent claims by
 * distinct identities, then R concurrent releases of claimed members by their holders. The
 * raw baseline is the storm's floor: N concurrent creates of distinct Leases straight through
 * the API (the first-writer-wins step alone), over the same kubeconfig and TLS.
 */

import { createEngine } from '../source/engine/engine.js';
import { loadKube } from '../source/kube/config.js';
import { ApiClient } from './api-client.js';
import { wallMs } from './clock.js';
import { leaseObject } from './pool-setup.js';

/** What the storm is run with (one JSON argument of the child). */
export interface ClaimStormOptions {
	kubeconfig: string;
	namespace: string;
	pool: string;
	claims: number;
	releases: number;
	/** Raw Lease creates of the baseline (0 = none). */
	rawLeases: number;
}

/** Latencies (ms) of one storm, the total time and the failures. */
export interface StormFigures {
	latencies: number[];
	totalMs: number;
	errors: string[];
}

/** What the storm did. */
export interface ClaimStormResult {
	/** Loading the kubeconfig and a first read of the pool (not counted in the storms). */
	warmMs: number;
	raw: StormFigures;
	claims: StormFigures & { members: string[]; distinct: number };
	releases: StormFigures & { released: string[]; recreated: number };
}

async function storm<T>(
	n: number,
	fn: (i: number) => Promise<T>,
): Promise<StormFigures & { values: Array<T | undefined> }> {
	const latencies: number[] = [];
	const errors: string[] = [];
	const values: Array<T | undefined> = new Array(n);
	const t0 = wallMs();
	await Promise.all(
		Array.from({ length: n }, async (_, i) => {
			const s = wallMs();
			try {
				values[i] = await fn(i);
				latencies.push(wallMs() - s);
			} catch (err) {
				errors.push((err as Error).message);
			}
		}),
	);
	return { latencies, totalMs: wallMs() - t0, errors, values };
}

/** Runs the storms; resolves with their figures. */
export async function runClaimStorm(opts: ClaimStormOptions): Promise<ClaimStormResult> {
	const w0 = wallMs();
	const kube = await loadKube({ kubeconfig: opts.kubeconfig, namespace: opts.namespace });
	// one engine, as a broker has: its concurrent claims share one read of the pool
	const engine = createEngine(kube, { actor: 'ctpool-bench' });
	// a first request opens the connection, as a long-running broker's would be
	await kube.core.readNamespacedConfigMap({
		name: `corral-vdi-ctpool-${opts.pool}`,
		namespace: opts.namespace,
	});
	// a broker keeps the pool in a watch-fed cache: its claims read nothing before the Lease create
	const cache = engine.watchPoolForClaims(opts.pool);
	await cache.ready;
	const warmMs = wallMs() - w0;

	const token = kube.config.getCurrentUser()?.token ?? '';
	const api = new ApiClient(kube.server, token, {
		agentName: 'ctpool-bench-raw',
		maxSockets: 64,
	});
	const raw = await storm(opts.rawLeases, (i) =>
		api.json('POST', `/apis/coordination.k8s.io/v1/namespaces/${opts.namespace}/leases`, {
			...leaseObject(`raw-${opts.pool}`, `raw-${i + 1}`, `raw-user-${i + 1}`),
			metadata: { name: `bench-raw-${opts.pool}-${i + 1}` },
		}),
	);
	api.close();

	const identity = (i: number) => `user-${i + 1}@bench.example`;
	const claims = await storm(opts.claims, (i) => engine.claim(opts.pool, identity(i)));
	const members = claims.values.map((v) => v?.member ?? '');
	const held = members
		.map((member, i) => ({ member, identity: identity(i) }))
		.filter((h) => h.member !== '')
		.slice(0, opts.releases);
	const releases = await storm(held.length, (i) =>
		engine.release(opts.pool, held[i]!.member, held[i]!.identity),
	);
	cache.stop();
	return {
		warmMs,
		raw: { latencies: raw.latencies, totalMs: raw.totalMs, errors: raw.errors },
		claims: {
			latencies: claims.latencies,
			totalMs: claims.totalMs,
			errors: claims.errors,
			members: members.filter((m) => m !== ''),
			distinct: new Set(members.filter((m) => m !== '')).size,
		},
		releases: {
			latencies: releases.latencies,
			totalMs: releases.totalMs,
			errors: releases.errors,
			released: held.map((h) => h.member),
			recreated: releases.values.filter((v) => v?.recreated).length,
		},
	};
}
