/**
 * The benchmark's side channel into the simulated cluster's process: a tiny HTTP endpoint
 * on 127.0.0.1 that reads the audit log (requests and writes per client since a mark) and
 * the controllers' backlog. It is bench-only: the product never sees it.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimCluster } from '../source/sim/index.js';

/** What one client did after a mark, from the sim's audit log. */
export interface ClientActivity {
	/** HTTP requests of every kind (watches count once, when they start). */
	requests: number;
	/** Requests by verb: get, list, watch, create, update, patch, delete, discovery, ... */
	byVerb: Record<string, number>;
	/** Mutations that changed the store. */
	writes: number;
	/** Mutating requests that changed nothing (failed, or no-op). */
	unchangedWrites: number;
	/** `verb resource` of each write that changed the store, counted. */
	writesByKind: Record<string, number>;
}

/** The audit log after a mark, by client (`who`: ctpool, kubectl, system:kubelet, ...). */
export type ActivitySince = Record<string, ClientActivity>;

function blank(): ClientActivity {
	return { requests: 0, byVerb: {}, writes: 0, unchangedWrites: 0, writesByKind: {} };
}

/** Sums the audit log after a mark by client. */
export function activitySince(cluster: SimCluster, mark: number): ActivitySince {
	const { requests, mutations } = cluster.audit.since(mark);
	const out: ActivitySince = {};
	const of = (who: string): ClientActivity => {
		let a = out[who];
		if (!a) {
			a = blank();
			out[who] = a;
		}
		return a;
	};
	for (const r of requests) {
		const a = of(r.who);
		a.requests++;
		a.byVerb[r.verb] = (a.byVerb[r.verb] ?? 0) + 1;
	}
	for (const m of mutations) {
		const a = of(m.who);
		if (m.changed) {
			a.writes++;
			const k = `${m.verb} ${m.resource}`;
			a.writesByKind[k] = (a.writesByKind[k] ?? 0) + 1;
		} else a.unchangedWrites++;
	}
	return out;
}

/** A running control endpoint. */
export interface SimControlServer {
	url: string;
	close(): Promise<void>;
}

/**
 * Serves GET /mark, GET /since?mark=N, GET /backlog and GET /usage for the cluster on
 * 127.0.0.1 (a random port).
 */
export async function startSimControl(cluster: SimCluster): Promise<SimControlServer> {
	const server: Server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const send = (code: number, body: unknown) => {
			res.writeHead(code, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		try {
			if (url.pathname === '/mark') return send(200, { mark: cluster.audit.mark() });
			if (url.pathname === '/since')
				return send(200, activitySince(cluster, Number(url.searchParams.get('mark') ?? 0)));
			if (url.pathname === '/backlog')
				return send(200, {
					...cluster.controllers.backlog(),
					controllerErrors: cluster.controllers.errors().length,
					openWatches: cluster.openWatches(),
					revision: cluster.store.revision(),
				});
			if (url.pathname === '/usage')
				return send(200, { cpu: process.cpuUsage(), memory: process.memoryUsage() });
			send(404, { error: `no such control path ${url.pathname}` });
		} catch (err) {
			send(500, { error: (err as Error).message });
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
