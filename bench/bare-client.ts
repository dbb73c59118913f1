/**
 * The floor of the live view's cost: a bare client doing what the console's watch does and
 * nothing more. For pods, PVCs, Leases and ConfigMaps with the pool label it lists, then
 * watches from the list's resourceVersion over plain HTTP, JSON.parses each line and keeps the
 * objects by name (an informer's cache, without decoding, deriving or drawing). Run as its
 * own process (bare-client-child.ts) so its CPU and memory are measured like ctpool's.
 */

import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';

/** What the bare client is started with (one JSON argument). */
export interface BareClientOptions {
	/** URL of the simulated cluster and its token. */
	url: string;
	token: string;
	/** The namespace watched, or null for every namespace. */
	namespace: string | null;
	labelSelector: string;
}

/** The kinds the console watches, with their API paths. */
const KINDS = [
	{ plural: 'pods', group: '/api/v1' },
	{ plural: 'persistentvolumeclaims', group: '/api/v1' },
	{ plural: 'configmaps', group: '/api/v1' },
	{ plural: 'leases', group: '/apis/coordination.k8s.io/v1' },
] as const;

interface Listed {
	metadata: { resourceVersion?: string };
	items: Array<{ metadata: { name?: string; namespace?: string } }>;
}

interface WatchEvent {
	type: string;
	object: { metadata: { name?: string; namespace?: string; resourceVersion?: string } };
}

/** Lists then watches every kind; resolves once every list has arrived (the watches go on). */
export async function startBareClient(opts: BareClientOptions): Promise<{ events(): number }> {
	const base = new URL(opts.url);
	const mod = base.protocol === 'https:' ? https : http;
	const agent = new mod.Agent({
		keepAlive: true,
		...(mod === https ? { rejectUnauthorized: false } : {}),
	});
	const headers = {
		Authorization: `Bearer ${opts.token}`,
		Accept: 'application/json',
		'User-Agent': 'ctpool-bench-bare/0.1',
	};
	const ns = opts.namespace === null ? '' : `/namespaces/${opts.namespace}`;
	let events = 0;
	const get = (path: string, onChunk: (c: Buffer) => void) =>
		new Promise<void>((resolve, reject) => {
			const req = mod.request(new URL(path, base), { agent, headers }, (res) => {
				if (res.statusCode !== 200) reject(new Error(`GET ${path}: HTTP ${res.statusCode}`));
				res.on('data', onChunk);
				res.on('end', resolve);
				res.on('error', reject);
			});
			req.on('error', reject);
			req.end();
		});
	const one = async (kind: (typeof KINDS)[number]) => {
		const cache = new Map<string, unknown>();
		const path = `${kind.group}${ns}/${kind.plural}?labelSelector=${encodeURIComponent(opts.labelSelector)}`;
		const parts: Buffer[] = [];
		await get(path, (c) => parts.push(c));
		const list = JSON.parse(Buffer.concat(parts).toString('utf8')) as Listed;
		for (const o of list.items) cache.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
		let rv = list.metadata.resourceVersion ?? '';
		const watch = async () => {
			for (;;) {
				let rest = '';
				await get(`${path}&watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`, (c) => {
					rest += c.toString('utf8');
					let nl = rest.indexOf('\n');
					while (nl >= 0) {
						const line = rest.slice(0, nl);
						rest = rest.slice(nl + 1);
						nl = rest.indexOf('\n');
						if (!line) continue;
						const e = JSON.parse(line) as WatchEvent;
						events++;
						rv = e.object.metadata.resourceVersion ?? rv;
						const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
						if (e.type === 'DELETED') cache.delete(key);
						else if (e.type !== 'BOOKMARK') cache.set(key, e.object);
					}
				}).catch(() => new Promise((r) => setTimeout(r, 500)));
			}
		};
		void watch();
	};
	await Promise.all(KINDS.map(one));
	return { events: () => events };
}

/** A bare client in its own process. */
export interface BareClientProcess {
	pid: number;
	/** Resolves once every list has arrived. */
	ready: Promise<void>;
	stop(): void;
}

/** Starts the bare client as its own process (bare-client-child.js in the bench directory). */
export function spawnBareClient(benchDir: string, opts: BareClientOptions): BareClientProcess {
	const child = spawn(
		process.execPath,
		[join(benchDir, 'bare-client-child.js'), JSON.stringify(opts)],
		{
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const ready = new Promise<void>((resolve, reject) => {
		child.stdout.on('data', (d: Buffer) => {
			if (d.toString().includes('"ready"')) resolve();
		});
		child.once('exit', (code) => reject(new Error(`the bare client exited with ${code}`)));
	});
	ready.catch(() => {});
	return {
		pid: child.pid ?? 0,
		ready,
		stop: () => {
			child.kill('SIGKILL');
		},
	};
}
