import { readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getJson, streamLines } from '../../source/kube/api-request.js';
import { type Kube, loadKube, MAX_CONNECTIONS } from '../../source/kube/config.js';
import { withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

const sim = withSim();

/** A TCP relay in front of the sim that counts the connections made through it. */
let relay: Server;
let connections = 0;
const open = new Set<Socket>();

async function kubeThroughRelay(name: string): Promise<Kube> {
	const port = (relay.address() as { port: number }).port;
	const text = readFileSync(sim.kubeconfigPath, 'utf8').replace(
		/server: https:\/\/127\.0\.0\.1:\d+/,
		`server: https://127.0.0.1:${port}`,
	);
	expect(text).toContain(`127.0.0.1:${port}`);
	const file = join(sim.sim.dir, name);
	writeFileSync(file, text, { mode: 0o600 });
	return loadKube({ kubeconfig: file, namespace: 'corral' });
}

beforeAll(async () => {
	const target = new URL(sim.cluster.url);
	relay = createServer((client) => {
		connections++;
		const upstream = connect(Number(target.port), '127.0.0.1');
		open.add(client);
		client.once('close', () => open.delete(client));
		client.pipe(upstream).pipe(client);
		client.on('error', () => upstream.destroy());
		upstream.on('error', () => client.destroy());
	});
	await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
	for (const s of open) s.destroy();
	await new Promise((r) => relay.close(r));
});

describe('one kept-alive connection pool per cluster connection', () => {
	test('API clients and raw reads keep their TLS connections alive, with the token still sent', async () => {
		const kube = await kubeThroughRelay('relay-a.yaml');
		const before = connections;
		for (let i = 0; i < 10; i++) {
			await kube.core.listNamespacedPod({ namespace: 'corral' });
			await kube.coordination.listNamespacedLease({ namespace: 'corral' });
			const list = await getJson<{ kind: string }>(
				kube.config,
				'/api/v1/namespaces/corral/persistentvolumeclaims',
				{},
				5000,
			);
			expect(list.kind).toBe('PersistentVolumeClaimList');
		}
		// 30 requests one after another: one connection for the API clients and one for the raw
		// reads (client-node alone makes one per request).
		expect(connections - before).toBe(2);
	});

	test('a connection the server cut is replaced, and writes still go through', async () => {
		const kube = await kubeThroughRelay('relay-b.yaml');
		await kube.core.listNamespacedPod({ namespace: 'corral' });
		const before = connections;
		sim.cluster.faults.refuseConnectionsFor(0);
		const body = {
			apiVersion: 'v1',
			kind: 'ConfigMap',
			metadata: { name: 'agent-cut', namespace: 'corral' },
			data: { a: '1' },
		};
		let created: { metadata?: { name?: string } } | undefined;
		// The first write may meet the cut socket before the client saw it close (a POST is not
		// repeated): the next one goes through a new connection.
		for (let i = 0; i < 3 && !created; i++)
			created = await kube.core
				.createNamespacedConfigMap({ namespace: 'corral', body })
				.catch(() => undefined);
		expect(created?.metadata?.name).toBe('agent-cut');
		expect(connections).toBeGreaterThan(before);
	});

	test('watches held open never take the connections requests wait for', async () => {
		const kube = await loadKube({ kubeconfig: sim.kubeconfigPath, requestTimeoutMs: 5000 });
		const stop = new AbortController();
		let opened = 0;
		const watches = Array.from({ length: MAX_CONNECTIONS + 2 }, () =>
			streamLines(
				kube.config,
				'/api/v1/namespaces/corral/configmaps',
				{ watch: 1 },
				stop.signal,
				() => {
					opened++;
				},
				() => {},
				5000,
			).catch(() => undefined),
		);
		try {
			await waitFor(() => opened === MAX_CONNECTIONS + 2, { what: 'every watch open' });
			const list = await kube.core.listNamespacedPod({ namespace: 'corral' });
			expect(Array.isArray(list.items)).toBe(true);
		} finally {
			stop.abort();
			await Promise.all(watches);
		}
	});
});
