/**
 * Exec over WebSocket with the real client-node Exec (and a raw `ws` client for protocol
 * details), against the real store and controllers behind a small HTTP server that hands
 * upgrades to execUpgrade as the API server does.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { execUpgrade } from '../../source/sim/exec.js';
import { waitFor } from '../support/wait.js';
import {
	isReady,
	NS,
	pod,
	podManifest,
	pvcManifest,
	startTestCluster,
	type TestCluster,
	waitingReason,
} from './behaviour-support.js';

let cluster: TestCluster;
let server: Server;
let port: number;

beforeEach(async () => {
	cluster = startTestCluster();
	server = createServer((_req, res) => {
		res.statusCode = 404;
		res.end();
	});
	server.on('upgrade', (req, socket, head) => {
		const url = new URL(req.url ?? '/', 'http://localhost');
		const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach)$/.exec(url.pathname);
		if (!m) {
			socket.destroy();
			return;
		}
		execUpgrade(req, socket, head, {
			store: cluster.store,
			config: cluster.config,
			namespace: m[1]!,
			pod: m[2]!,
			query: url.searchParams,
			subresource: m[3] as 'exec' | 'attach',
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
	cluster.close();
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

function kubeConfig(): KubeConfig {
	const kc = new KubeConfig();
	kc.loadFromOptions({
		clusters: [{ name: 'sim', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
		users: [{ name: 'sim', token: 'test' }],
		contexts: [{ name: 'sim', cluster: 'sim', user: 'sim', namespace: NS }],
		currentContext: 'sim',
	});
	return kc;
}

async function readyPod(name: string, claim?: string): Promise<void> {
	if (claim) cluster.store.create('persistentvolumeclaims', pvcManifest(claim));
	cluster.store.create('pods', podManifest(name, claim ? { claim } : {}));
	await waitFor(() => isReady(pod(cluster.store, name)), {
		what: `${name} Ready`,
		wakeOn: cluster.store,
	});
}

interface ExecResult {
	stdout: string;
	stderr: string;
	status: V1Status;
}

/** Runs a command through client-node's Exec; resolves once the Status arrives. */
function execute(
	name: string,
	command: string[],
	o: { stdin?: PassThrough; tty?: boolean; stdout?: PassThrough } = {},
): { result: Promise<ExecResult>; stdout: () => string; socket: Promise<WebSocket> } {
	const out = o.stdout ?? new PassThrough();
	const err = new PassThrough();
	let stdout = '';
	let stderr = '';
	out.on('data', (d: Buffer) => {
		stdout += d.toString('utf8');
	});
	err.on('data', (d: Buffer) => {
		stderr += d.toString('utf8');
	});
	let resolveStatus: (s: V1Status) => void = () => {};
	const statusP = new Promise<V1Status>((r) => {
		resolveStatus = r;
	});
	const socket = new Exec(kubeConfig()).exec(
		NS,
		name,
		'ct',
		command,
		out,
		o.tty ? null : err,
		o.stdin ?? null,
		o.tty ?? false,
		(s) => resolveStatus(s),
	) as unknown as Promise<WebSocket>;
	const result = (async () => {
		await socket;
		const status = await statusP;
		return { stdout, stderr, status };
	})();
	return { result, stdout: () => stdout, socket };
}

/** The HTTP answer to an exec upgrade that the server refuses. */
function refused(
	path: string,
	protocol = 'v5.channel.k8s.io',
): Promise<{ code: number; body: { message: string; reason: string; code: number } }> {
	return new Promise((resolve, reject) => {
		const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, [protocol]);
		ws.on('open', () => reject(new Error('the upgrade was accepted')));
		ws.on('unexpected-response', (_req, res) => {
			let body = '';
			res.on('data', (d: Buffer) => {
				body += d.toString('utf8');
			});
			res.on('end', () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(body) }));
		});
		ws.on('error', () => {});
	});
}

describe('exec over WebSocket with client-node', () => {
	it('runs hostname and ends with a Success status', async () => {
		await readyPod('desk-1');
		const { result } = execute('desk-1', ['hostname']);
		const r = await result;
		expect(r.stdout).toBe('desk-1\n');
		expect(r.status).toEqual({ metadata: {}, status: 'Success' });
	});

	it('reports a non-zero exit code in the status', async () => {
		await readyPod('desk-1');
		const r = await execute('desk-1', ['sh', '-c', 'echo out; echo err >&2; exit 3']).result;
		expect(r.stdout).toBe('out\n');
		expect(r.stderr).toBe('err\n');
		expect(r.status).toMatchObject({
			status: 'Failure',
			reason: 'NonZeroExitCode',
			details: { causes: [{ reason: 'ExitCode', message: '3' }] },
		});
		expect(r.status.message).toMatch(/^command terminated with non-zero exit code: /);
	});

	it('reads the pod file tree, with /data from the pod claim', async () => {
		await readyPod('desk-1', 'desk-1-data');
		const r = await execute('desk-1', ['sh', '-c', 'cat /data/README; df -h | grep /data']).result;
		expect(r.stdout).toContain('data volume of desk-1 (claim desk-1-data)');
		expect(r.stdout).toMatch(/\/dev\/sdb +5\.0G/);
		expect(r.status.status).toBe('Success');
	});

	it('keeps files written in one session for the next', async () => {
		await readyPod('desk-1');
		await execute('desk-1', ['sh', '-c', 'echo kept > /data/note']).result;
		const r = await execute('desk-1', ['cat', '/data/note']).result;
		expect(r.stdout).toBe('kept\n');
	});

	it('answers an unknown program with the runtime error', async () => {
		await readyPod('desk-1');
		const r = await execute('desk-1', ['frobnicate']).result;
		expect(r.status).toMatchObject({ status: 'Failure', reason: 'InternalError', code: 500 });
		expect(r.status.message).toContain('exec: "frobnicate": executable file not found in $PATH');
	});

	it('runs an interactive tty session: prompt, typed command, resize, exit code', async () => {
		await readyPod('desk-1');
		const stdin = new PassThrough();
		const stdout = Object.assign(new PassThrough(), { rows: 33, columns: 101 });
		const session = execute('desk-1', ['sh'], { stdin, tty: true, stdout });
		await vi.waitFor(() => expect(session.stdout()).toContain('desk-1:/# '), { timeout: 10_000 });
		stdin.write('hostname\r');
		await vi.waitFor(() => expect(session.stdout()).toContain('desk-1\r\ndesk-1:/# '), {
			timeout: 10_000,
		});
		stdin.write('stty size\r');
		await vi.waitFor(() => expect(session.stdout()).toContain('33 101\r\n'), { timeout: 10_000 });
		stdin.write('exit 4\r');
		const r = await session.result;
		expect(r.status).toMatchObject({
			reason: 'NonZeroExitCode',
			details: { causes: [{ message: '4' }] },
		});
	});

	it('ends a non-tty shell when stdin is closed (v5 close frame)', async () => {
		await readyPod('desk-1');
		const stdin = new PassThrough();
		const session = execute('desk-1', ['sh'], { stdin });
		const ws = await session.socket;
		expect(ws.protocol).toBe('v5.channel.k8s.io');
		stdin.write('echo one\n');
		stdin.end('false\n');
		const r = await session.result;
		expect(r.stdout).toBe('one\n');
		expect(r.status).toMatchObject({ details: { causes: [{ message: '1' }] } });
	});

	it('ends the session with exit code 137 when the pod goes away', async () => {
		await readyPod('desk-1');
		const session = execute('desk-1', ['sleep', 'infinity']);
		await session.socket;
		cluster.store.delete('pods', NS, 'desk-1', { gracePeriodSeconds: 0 });
		const r = await session.result;
		expect(r.status).toMatchObject({ details: { causes: [{ message: '137' }] } });
	});
});

describe('exec refusals before the upgrade', () => {
	const path = (name: string, extra = '') =>
		`/api/v1/namespaces/${NS}/pods/${name}/exec?command=hostname&stdout=true${extra}`;

	it('404 for a missing pod', async () => {
		const r = await refused(path('ghost'));
		expect(r.code).toBe(404);
		expect(r.body).toMatchObject({
			reason: 'NotFound',
			message: 'pods "ghost" not found',
			code: 404,
		});
	});

	it('400 container not found for a pod still starting', async () => {
		cluster.close();
		cluster = startTestCluster({ containerStartMs: 10_000_000 });
		cluster.store.create('pods', podManifest('slow'));
		await waitFor(() => waitingReason(pod(cluster.store, 'slow')) === 'ContainerCreating', {
			what: 'slow creating',
			wakeOn: cluster.store,
		});
		const r = await refused(path('slow'));
		expect(r.code).toBe(400);
		expect(r.body.message).toBe('unable to upgrade connection: container not found ("ct")');
	});

	it('400 for a failed pod', async () => {
		await readyPod('desk-1');
		cluster.controllers.fail(NS, 'desk-1');
		const r = await refused(path('desk-1'));
		expect(r.code).toBe(400);
		expect(r.body.message).toBe('unable to upgrade connection: container not found ("ct")');
	});

	it('400 for a container the pod lacks', async () => {
		await readyPod('desk-1');
		const r = await refused(path('desk-1', '&container=nope'));
		expect(r.code).toBe(400);
		expect(r.body.message).toBe('container nope is not valid for pod desk-1');
	});

	it('400 for a pod the scheduler could not place', async () => {
		cluster.store.create('pods', podManifest('huge', { memory: '1Ti' }));
		await waitFor(
			() =>
				pod(cluster.store, 'huge')?.status.conditions?.some((c) => c.reason === 'Unschedulable'),
			{ what: 'huge unschedulable', wakeOn: cluster.store },
		);
		const r = await refused(path('huge'));
		expect(r.body.message).toBe('pod huge does not have a host assigned');
	});

	it('400 for an offer of no protocol it speaks', async () => {
		await readyPod('desk-1');
		const r = await refused(path('desk-1'), 'base64.channel.k8s.io');
		expect(r.code).toBe(400);
		expect(r.body.message).toContain('none of the offered subprotocols is supported');
	});
});

describe('exec protocol details', () => {
	function raw(name: string, protocols: string[], query: string) {
		const frames: Buffer[] = [];
		const ws = new WebSocket(
			`ws://127.0.0.1:${port}/api/v1/namespaces/${NS}/pods/${name}/exec?${query}`,
			protocols,
		);
		ws.on('message', (d: Buffer) => frames.push(Buffer.from(d)));
		const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
		const opened = new Promise<void>((resolve, reject) => {
			ws.on('open', () => resolve());
			ws.on('error', reject);
		});
		return { ws, frames, closed, opened };
	}

	it('picks v4 when offered, opens with an empty stdout frame, never sends channel 255, closes 1000', async () => {
		await readyPod('desk-1');
		const s = raw(
			'desk-1',
			['v4.channel.k8s.io', 'channel.k8s.io'],
			'command=sh&command=-c&command=exit%202&stdout=true&stderr=true',
		);
		await s.opened;
		expect(s.ws.protocol).toBe('v4.channel.k8s.io');
		expect(await s.closed).toBe(1000);
		expect(s.frames[0]).toEqual(Buffer.from([1]));
		expect(s.frames.every((f) => f[0] !== 255)).toBe(true);
		const status = s.frames.find((f) => f[0] === 3);
		expect(JSON.parse(status!.subarray(1).toString('utf8'))).toMatchObject({
			reason: 'NonZeroExitCode',
			details: { causes: [{ reason: 'ExitCode', message: '2' }] },
		});
	});

	it('writes a plain error text on the status channel for channel.k8s.io', async () => {
		await readyPod('desk-1');
		const s = raw('desk-1', ['channel.k8s.io'], 'command=false&stdout=true');
		await s.opened;
		expect(await s.closed).toBe(1000);
		const status = s.frames.find((f) => f[0] === 3);
		expect(status?.subarray(1).toString('utf8')).toMatch(
			/^command terminated with non-zero exit code: /,
		);
	});

	it('takes resize frames with capitalised keys (kubectl) and stdin on channel 0', async () => {
		await readyPod('desk-1');
		const s = raw('desk-1', ['v5.channel.k8s.io'], 'command=sh&stdin=true&stdout=true&tty=true');
		await s.opened;
		s.ws.send(Buffer.concat([Buffer.from([4]), Buffer.from('{"Width":132,"Height":43}')]));
		s.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('stty size\rexit\r')]));
		expect(await s.closed).toBe(1000);
		const out = Buffer.concat(
			s.frames.filter((f) => f[0] === 1).map((f) => f.subarray(1)),
		).toString('utf8');
		expect(out).toContain('43 132\r\n');
		const status = s.frames.find((f) => f[0] === 3);
		expect(JSON.parse(status!.subarray(1).toString('utf8'))).toEqual({
			metadata: {},
			status: 'Success',
		});
	});
});
