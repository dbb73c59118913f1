import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { SimObject } from '../../source/sim/store-api.js';
import { humanDuration, podCells, printerFor } from '../../source/sim/tables.js';
import { simFetch, withSim } from '../support/sim.js';
import { waitFor } from '../support/wait.js';

/** A SPDY upgrade request as kubectl's fallback sends it; resolves with the plain HTTP answer. */
function rawUpgrade(
	port: number,
	token: string,
	path: string,
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request({
			host: '127.0.0.1',
			port,
			path,
			method: 'POST',
			headers: { Authorization: `Bearer ${token}`, Connection: 'Upgrade', Upgrade: 'SPDY/3.1' },
		});
		req.on('response', (res) => {
			let body = '';
			res.setEncoding('utf8');
			res.on('data', (d: string) => {
				body += d;
			});
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
		});
		req.on('upgrade', () => reject(new Error('unexpected upgrade')));
		req.on('error', reject);
		req.end();
	});
}

const NOW = Date.parse('2026-11-29T10:00:00Z');
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

function pod(
	status: Record<string, unknown>,
	extra: Partial<SimObject['metadata']> = {},
	containers = 1,
): SimObject {
	return {
		apiVersion: 'v1',
		kind: 'Pod',
		metadata: { name: 'p', creationTimestamp: '2026-11-29T09:00:00Z', ...extra },
		spec: {
			containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: 'x' })),
		},
		status,
	};
}

describe('ages', () => {
	it('print like kubectl', () => {
		const cases: [number, string][] = [
			[0, '0s'],
			[45, '45s'],
			[119, '119s'],
			[200, '3m20s'],
			[180, '3m'],
			[15 * 60, '15m'],
			[179 * 60, '179m'],
			[5 * 3600 + 600, '5h10m'],
			[5 * 3600, '5h'],
			[20 * 3600 + 59 * 60, '20h'],
			[3 * 86400 + 4 * 3600, '3d4h'],
			[3 * 86400, '3d'],
			[12 * 86400, '12d'],
			[800 * 86400, '2y70d'],
		];
		for (const [s, want] of cases) expect([s, humanDuration(s * 1000)]).toEqual([s, want]);
		expect(humanDuration(-5000)).toBe('<invalid>');
	});
});

describe('pod cells', () => {
	it('follow the 1.32 STATUS, READY and RESTARTS rules', () => {
		expect(podCells(pod({ phase: 'Pending' }), NOW)).toEqual({
			ready: '0/1',
			status: 'Pending',
			restarts: '0',
		});
		const waiting = pod({
			phase: 'Pending',
			containerStatuses: [
				{
					name: 'c0',
					ready: false,
					restartCount: 0,
					state: { waiting: { reason: 'ImagePullBackOff' } },
				},
			],
		});
		expect(podCells(waiting, NOW).status).toBe('ImagePullBackOff');
		const running = pod(
			{
				phase: 'Running',
				containerStatuses: [
					{ name: 'c0', ready: true, restartCount: 0, state: { running: {} } },
					{
						name: 'c1',
						ready: false,
						restartCount: 3,
						state: { waiting: { reason: 'CrashLoopBackOff' } },
						lastState: { terminated: { exitCode: 1, finishedAt: '2026-11-29T09:59:15Z' } },
					},
				],
			},
			{},
			2,
		);
		expect(podCells(running, NOW)).toEqual({
			ready: '1/2',
			status: 'CrashLoopBackOff',
			restarts: '3 (45s ago)',
		});
		const failed = pod({
			phase: 'Failed',
			containerStatuses: [
				{ name: 'c0', ready: false, state: { terminated: { exitCode: 2, reason: 'Error' } } },
			],
		});
		expect(podCells(failed, NOW).status).toBe('Error');
		const noReason = pod({
			phase: 'Failed',
			containerStatuses: [{ name: 'c0', state: { terminated: { exitCode: 7 } } }],
		});
		expect(podCells(noReason, NOW).status).toBe('ExitCode:7');
		const evicted = pod({ phase: 'Failed', reason: 'Evicted' });
		expect(podCells(evicted, NOW).status).toBe('Evicted');
		const terminating = pod(
			{
				phase: 'Running',
				containerStatuses: [{ name: 'c0', ready: true, state: { running: {} } }],
			},
			{ deletionTimestamp: '2026-11-29T10:00:30Z' },
		);
		expect(podCells(terminating, NOW)).toEqual({
			ready: '1/1',
			status: 'Terminating',
			restarts: '0',
		});
		const doneTerminating = pod(
			{ phase: 'Succeeded' },
			{ deletionTimestamp: '2026-11-29T10:00:30Z' },
		);
		expect(podCells(doneTerminating, NOW).status).toBe('Succeeded');
	});

	it('event rows read like kubectl get events', () => {
		const row = printerFor('events').row(
			{
				apiVersion: 'v1',
				kind: 'Event',
				metadata: { name: 'desk-1.abc', namespace: 'corral' },
				involvedObject: { kind: 'Pod', name: 'desk-1', namespace: 'corral' },
				reason: 'FailedScheduling',
				type: 'Warning',
				message: '0/3 nodes are available: 3 Insufficient memory. ',
				firstTimestamp: '2026-11-29T09:50:00Z',
				lastTimestamp: '2026-11-29T09:59:00Z',
				count: 4,
				source: { component: 'default-scheduler' },
			},
			NOW,
		);
		expect(row).toEqual([
			'60s',
			'Warning',
			'FailedScheduling',
			'pod/desk-1',
			'',
			'default-scheduler',
			'0/3 nodes are available: 3 Insufficient memory.',
			'10m',
			4,
			'desk-1.abc',
		]);
		const names = printerFor('events')
			.columns.filter((c) => c.priority === 0)
			.map((c) => c.name);
		expect(names).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
	});
});

describe('server-side tables over HTTP', () => {
	const env = withSim();

	it('answers as=Table with the column set, PartialObjectMetadata rows, and includeObject=Object', async () => {
		env.cluster.store.create('configmaps', {
			apiVersion: 'v1',
			kind: 'ConfigMap',
			metadata: { name: 'tab', namespace: 'corral' },
			data: { a: '1', b: '2' },
		});
		const res = await simFetch(env.cluster, '/api/v1/namespaces/corral/configmaps', {
			headers: { Accept: TABLE },
		});
		expect(res.headers.get('content-type')).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
		const table = res.json() as {
			kind: string;
			columnDefinitions: { name: string; priority: number }[];
			rows: { cells: unknown[]; object: { kind: string; metadata: { name: string } } }[];
		};
		expect(table.kind).toBe('Table');
		expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
		// The namespace's kube-root-ca.crt (the controller manager's) is listed too.
		const tab = table.rows.find((r) => r.object.metadata.name === 'tab');
		expect(tab?.cells.slice(0, 2)).toEqual(['tab', 2]);
		expect(tab?.object.kind).toBe('PartialObjectMetadata');
		const full = (
			await simFetch(env.cluster, '/api/v1/namespaces/corral/configmaps?includeObject=Object', {
				headers: { Accept: TABLE },
			})
		).json() as { rows: { object: { kind: string; data: unknown; metadata: { name: string } } }[] };
		expect(full.rows.find((r) => r.object.metadata.name === 'tab')?.object).toMatchObject({
			kind: 'ConfigMap',
			data: { a: '1', b: '2' },
		});
		const pods = (
			await simFetch(env.cluster, '/api/v1/namespaces/corral/pods', { headers: { Accept: TABLE } })
		).json() as {
			columnDefinitions: { name: string; priority: number }[];
		};
		expect(pods.columnDefinitions.map((c) => `${c.name}:${c.priority}`)).toEqual([
			'Name:0',
			'Ready:0',
			'Status:0',
			'Restarts:0',
			'Age:0',
			'IP:1',
			'Node:1',
			'Nominated Node:1',
			'Readiness Gates:1',
		]);
	});

	it('sends one-row tables in a watch, column definitions in the first only', async () => {
		const controller = new AbortController();
		const res = await fetch(
			`${env.cluster.url}/apis/coordination.k8s.io/v1/namespaces/corral/leases?watch=1`,
			{
				headers: { Authorization: `Bearer ${env.cluster.token}`, Accept: TABLE },
				signal: controller.signal,
			},
		);
		const reader = res.body!.getReader();
		let text = '';
		const lines = () => text.split('\n').filter(Boolean);
		const pump = (async () => {
			for (;;) {
				const { value, done } = await reader.read();
				if (done) return;
				text += new TextDecoder().decode(value);
			}
		})().catch(() => {});
		for (const name of ['l-1', 'l-2']) {
			env.cluster.store.create('leases', {
				apiVersion: 'coordination.k8s.io/v1',
				kind: 'Lease',
				metadata: { name, namespace: 'corral' },
				spec: { holderIdentity: `holder-${name}` },
			});
		}
		await waitFor(() => lines().length >= 2, { what: 'two watch events' });
		controller.abort();
		await pump;
		const [a, b] = lines().map(
			(l) =>
				JSON.parse(l) as {
					type: string;
					object: {
						kind: string;
						columnDefinitions: unknown[] | null;
						rows: { cells: unknown[] }[];
					};
				},
		);
		expect(a?.type).toBe('ADDED');
		expect(a?.object.kind).toBe('Table');
		expect(a?.object.columnDefinitions).toHaveLength(3);
		expect(a?.object.rows).toHaveLength(1);
		expect(a?.object.rows[0]?.cells.slice(0, 2)).toEqual(['l-1', 'holder-l-1']);
		expect(b?.object.columnDefinitions).toBeNull();
		expect(b?.object.rows[0]?.cells[0]).toBe('l-2');
	});

	it('deletes a collection by label and answers exec without an upgrade with a Status', async () => {
		for (const n of ['dc-1', 'dc-2', 'dc-3']) {
			env.cluster.store.create('configmaps', {
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: {
					name: n,
					namespace: 'corral',
					labels: n === 'dc-3' ? { keep: 'y' } : { drop: 'y' },
				},
			});
		}
		const res = await simFetch(
			env.cluster,
			'/api/v1/namespaces/corral/configmaps?labelSelector=drop%3Dy',
			{
				method: 'DELETE',
			},
		);
		expect(res.status).toBe(200);
		expect(
			(res.json() as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name),
		).toEqual(['dc-1', 'dc-2']);
		expect(env.cluster.store.get('configmaps', 'corral', 'dc-3')).toBeDefined();
		const exec = await simFetch(
			env.cluster,
			'/api/v1/namespaces/corral/pods/nope/exec?command=sh&stdout=true',
		);
		expect(exec.json()).toMatchObject({ kind: 'Status', status: 'Failure' });
		expect([400, 404]).toContain(exec.status);
		const upgradeMissing = await rawUpgrade(
			env.cluster.port,
			env.cluster.token,
			'/api/v1/namespaces/corral/pods/nope/exec?command=sh',
		);
		expect(upgradeMissing.status).toBe(404);
		expect(JSON.parse(upgradeMissing.body)).toMatchObject({ message: 'pods "nope" not found' });
	});
});
