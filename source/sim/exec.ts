/**
 * Exec into a simulated pod over WebSocket: the channel protocols kubectl and client-node
 * speak (v5.channel.k8s.io and v4.channel.k8s.io, plus v3, v2 and channel.k8s.io for older
 * clients), with the simulated shell on the other end. Frames are binary, first byte the
 * channel: 0 stdin, 1 stdout, 2 stderr, 3 status, 4 resize, 255 close (v5, from the client).
 * The session opens with an empty stdout frame and ends with the Status on channel 3 and a
 * close with code 1000; channel 255 is never sent to a client.
 */

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { SimClusterConfig } from './config.js';
import { SimError } from './errors.js';
import { queryBool } from './query.js';
import { type ShellPod, SimShell } from './shell.js';
import { podFiles } from './shell-files.js';
import { quoteArg } from './shell-parse.js';
import type { SimApiError, SimObject, SimStore } from './store-api.js';

/** What the HTTP layer hands over for one exec request, after authentication and routing. */
export interface ExecContext {
	store: SimStore;
	config: SimClusterConfig;
	namespace: string;
	pod: string;
	query: URLSearchParams;
	/** `exec` (default) or `attach`. */
	subresource?: 'exec' | 'attach';
}

/** The channel protocols served, best first. */
export const EXEC_PROTOCOLS = [
	'v5.channel.k8s.io',
	'v4.channel.k8s.io',
	'v3.channel.k8s.io',
	'v2.channel.k8s.io',
	'channel.k8s.io',
] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
const CLOSE = 255;

interface ExecPod extends SimObject {
	spec?: {
		nodeName?: string;
		containers?: Array<{
			name: string;
			image?: string;
			env?: Array<{ name: string; value?: string }>;
			volumeMounts?: Array<{ name: string; mountPath: string }>;
		}>;
		volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName?: string } }>;
	};
	status?: {
		phase?: string;
		podIP?: string;
		containerStatuses?: Array<{ name: string; state?: { running?: unknown } }>;
	};
}

function badRequest(message: string): SimError {
	return new SimError(400, 'BadRequest', message);
}

/** The best protocol both sides speak, from a Sec-WebSocket-Protocol header; null when none. */
export function pickExecProtocol(
	offered: string | string[] | Iterable<string> | undefined,
): string | null {
	if (offered === undefined) return null;
	const list =
		typeof offered === 'string'
			? offered.split(',').map((s) => s.trim())
			: [...offered].flatMap((s) => s.split(',').map((x) => x.trim()));
	for (const p of EXEC_PROTOCOLS) if (list.includes(p)) return p;
	return null;
}

/** The container an exec targets: the named one, or the only one. */
function targetContainer(pod: ExecPod, query: URLSearchParams): { name: string } | SimError {
	const containers = pod.spec?.containers ?? [];
	const asked = query.get('container');
	if (asked) {
		if (!containers.some((c) => c.name === asked)) {
			return badRequest(`container ${asked} is not valid for pod ${pod.metadata.name}`);
		}
		return { name: asked };
	}
	if (containers.length === 1) return { name: containers[0]!.name };
	return badRequest(
		`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`,
	);
}

/**
 * The error an exec request gets before any upgrade: 404 for a missing pod, 400 for a pod
 * that is not running or a container it lacks; null when the exec may proceed.
 */
export function execPreflight(ctx: ExecContext): SimApiError | null {
	const obj = ctx.store.get('pods', ctx.namespace, ctx.pod);
	if (!obj) {
		return new SimError(404, 'NotFound', `pods "${ctx.pod}" not found`, {
			name: ctx.pod,
			kind: 'pods',
		});
	}
	const pod = obj as ExecPod;
	const container = targetContainer(pod, ctx.query);
	if (container instanceof SimError) return container;
	if (ctx.subresource !== 'attach' && ctx.query.getAll('command').length === 0) {
		return badRequest('you must specify at least 1 command');
	}
	if (!pod.spec?.nodeName) return badRequest(`pod ${ctx.pod} does not have a host assigned`);
	const status = pod.status?.containerStatuses?.find((s) => s.name === container.name);
	const phase = pod.status?.phase;
	if (phase !== 'Running' || !status?.state?.running) {
		return badRequest(`unable to upgrade connection: container not found ("${container.name}")`);
	}
	return null;
}

let server: WebSocketServer | undefined;

function wsServer(): WebSocketServer {
	server ??= new WebSocketServer({
		noServer: true,
		perMessageDeflate: false,
		clientTracking: false,
		handleProtocols: (protocols) => pickExecProtocol(protocols) ?? false,
	});
	return server;
}

function rawError(socket: Duplex, err: SimApiError): void {
	const body = JSON.stringify(err.status);
	const text = err.code === 404 ? 'Not Found' : err.code === 400 ? 'Bad Request' : 'Error';
	socket.end(
		`HTTP/1.1 ${err.code} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
}

/** Completes the WebSocket upgrade and runs the simulated shell. */
export function execUpgrade(
	req: IncomingMessage,
	socket: Duplex,
	head: Buffer,
	ctx: ExecContext,
): void {
	const pre = execPreflight(ctx);
	if (pre) {
		rawError(socket, pre);
		return;
	}
	if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
		rawError(
			socket,
			badRequest('unable to upgrade connection: exec is served over WebSocket only'),
		);
		return;
	}
	const protocol = pickExecProtocol(req.headers['sec-websocket-protocol']);
	if (!protocol) {
		rawError(
			socket,
			badRequest(
				`unable to upgrade connection: none of the offered subprotocols is supported (want one of ${EXEC_PROTOCOLS.join(', ')})`,
			),
		);
		return;
	}
	wsServer().handleUpgrade(req, socket, head, (ws) => {
		runSession(ws, ctx).catch(() => ws.terminate());
	});
}

/** The Status that ends a session, as the kubelet writes it. */
export function exitStatus(code: number, argv: string[]): Record<string, unknown> {
	if (code === 0) return { metadata: {}, status: 'Success' };
	return {
		metadata: {},
		status: 'Failure',
		message: `command terminated with non-zero exit code: command '${argv.map(quoteArg).join(' ')}' exited with ${code}`,
		reason: 'NonZeroExitCode',
		details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
	};
}

/** The Status of an exec whose program does not exist in the container. */
function notFoundStatus(program: string, uid: string): Record<string, unknown> {
	const id = createHash('sha256').update(`${uid}/${program}/${Date.now()}`).digest('hex');
	const detail = `error executing command in container: failed to exec in container: failed to start exec "${id}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown`;
	return {
		metadata: {},
		status: 'Failure',
		message: `Internal error occurred: ${detail}`,
		reason: 'InternalError',
		details: { causes: [{ message: detail }] },
		code: 500,
	};
}

function shellPod(pod: ExecPod, container: string, store: SimStore): ShellPod {
	const c = pod.spec?.containers?.find((x) => x.name === container);
	const env: Record<string, string> = {};
	for (const e of c?.env ?? []) if (typeof e.value === 'string') env[e.name] = e.value;
	const mounts = (c?.volumeMounts ?? []).map((m) => m.mountPath);
	const dataMount = c?.volumeMounts?.find(
		(m) => m.mountPath === '/data' || m.mountPath === '/corral-rootfs',
	);
	const claimName = pod.spec?.volumes?.find((v) => v.name === dataMount?.name)
		?.persistentVolumeClaim?.claimName;
	const claim = claimName
		? (store.get('persistentvolumeclaims', pod.metadata.namespace, claimName) as
				| { status?: { capacity?: { storage?: string } } }
				| undefined)
		: undefined;
	return {
		name: pod.metadata.name,
		namespace: pod.metadata.namespace ?? 'default',
		uid: pod.metadata.uid ?? '',
		nodeName: pod.spec?.nodeName,
		podIP: pod.status?.podIP,
		image: c?.image,
		env,
		mounts,
		claimSize: claim?.status?.capacity?.storage,
	};
}

async function runSession(ws: WebSocket, ctx: ExecContext): Promise<void> {
	const protocol = ws.protocol;
	const jsonStatus = protocol === 'v5.channel.k8s.io' || protocol === 'v4.channel.k8s.io';
	const q = ctx.query;
	const flag = (name: string) => queryBool(q, name);
	const tty = flag('tty');
	const wantStdout = flag('stdout');
	const wantStderr = flag('stderr');
	const wantStdin = flag('stdin');
	const pod = ctx.store.get('pods', ctx.namespace, ctx.pod) as ExecPod | undefined;
	const container = pod ? targetContainer(pod, q) : null;
	let open = true;
	// One frame at a time, each written out before the next: frames sent together would share
	// one TLS record, and a client that polls the socket for each frame (the Python client's
	// stream API) would never see the ones left in its TLS buffer, such as the status and close.
	let written: Promise<void> = Promise.resolve();
	const send = (channel: number, data: string | Buffer) => {
		if (!open || ws.readyState !== ws.OPEN) return;
		const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
		const frame = Buffer.concat([Buffer.from([channel]), body]);
		written = written.then(
			() =>
				new Promise<void>((resolve) => {
					if (ws.readyState !== ws.OPEN) resolve();
					else ws.send(frame, () => resolve());
				}),
		);
	};
	const finish = (status: Record<string, unknown> | null) => {
		if (!open) return;
		if (status) send(STATUS, JSON.stringify(status));
		open = false;
		void written.then(() => {
			if (ws.readyState === ws.OPEN) ws.close(1000);
		});
	};
	if (!pod || !container || container instanceof SimError) {
		finish({
			metadata: {},
			status: 'Failure',
			message: `pods "${ctx.pod}" not found`,
			reason: 'NotFound',
			code: 404,
		});
		return;
	}
	const info = shellPod(pod, container.name, ctx.store);
	const shell = new SimShell({
		pod: info,
		files: podFiles(ctx.store, info.uid, {
			name: info.name,
			namespace: info.namespace,
			podIP: info.podIP,
			mounts: info.mounts,
			claimName: pod.spec?.volumes?.find((v) => v.persistentVolumeClaim)?.persistentVolumeClaim
				?.claimName,
		}),
		tty,
		timeScale: ctx.config.timeScale,
		stdout: (t) => {
			if (wantStdout) send(STDOUT, t);
		},
		stderr: (t) => {
			if (tty) {
				if (wantStdout) send(STDOUT, t);
			} else if (wantStderr) send(STDERR, t);
		},
	});
	if (!wantStdin) shell.endInput();
	ws.on('message', (data, isBinary) => {
		const buf = Buffer.isBuffer(data)
			? data
			: Array.isArray(data)
				? Buffer.concat(data)
				: Buffer.from(data as ArrayBuffer);
		if (!isBinary && buf.length === 0) return;
		if (buf.length === 0) return;
		const channel = buf[0];
		const payload = buf.subarray(1);
		if (channel === STDIN) shell.write(payload);
		else if (channel === RESIZE) {
			try {
				const size = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
				const cols = Number(size.Width ?? size.width);
				const rows = Number(size.Height ?? size.height);
				if (Number.isFinite(cols) && Number.isFinite(rows)) shell.resize(cols, rows);
			} catch {
				// A malformed resize frame is ignored, as the kubelet does.
			}
		} else if (channel === CLOSE && payload[0] === STDIN) shell.endInput();
	});
	ws.on('close', () => {
		open = false;
		shell.abort();
	});
	ws.on('error', () => {
		open = false;
		shell.abort();
	});
	// The kubelet ends the session when the pod goes away (exit 137, SIGKILL).
	const uid = pod.metadata.uid;
	let gone = false;
	const unwatch = ctx.store.onChange((e) => {
		if (e.resource !== 'pods' || e.type !== 'DELETED') return;
		if (e.object.metadata.uid !== uid) return;
		shell.abort();
		gone = true;
	});
	send(STDOUT, Buffer.alloc(0));
	const argv = ctx.subresource === 'attach' ? ['sleep', 'infinity'] : q.getAll('command');
	try {
		if (!shell.canStart(argv[0] ?? '')) {
			const status = notFoundStatus(argv[0] ?? '', info.uid);
			if (!jsonStatus) send(STATUS, String(status.message));
			finish(jsonStatus ? status : null);
			return;
		}
		const code = await shell.run(argv);
		const final = gone ? 137 : code;
		if (jsonStatus) finish(exitStatus(final, argv));
		else {
			if (final !== 0) send(STATUS, String(exitStatus(final, argv).message));
			finish(null);
		}
	} finally {
		unwatch();
	}
}
