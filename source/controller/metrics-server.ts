/**
 * The reconciler's HTTP endpoints: /healthz (the process answers), /readyz (every watch has
 * synced) and /metrics (Prometheus text from prom-client).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { PoolError } from '../pool/errors.js';

/** A listen address: host and port (0 = any free port). */
export interface ListenAddress {
	host: string;
	port: number;
}

/** Parses `HOST:PORT` (`[::1]:8080`, `0.0.0.0:8080`, `127.0.0.1:0`); a usage error names the fix. */
export function parseListenAddress(flag: string, text: string): ListenAddress {
	const fix = `--${flag} takes HOST:PORT, such as 0.0.0.0:8080 or 127.0.0.1:0 (port 0 picks a free port)`;
	const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
	const port = m ? Number(m[3]) : Number.NaN;
	if (!m || port > 65535)
		throw new PoolError('usage', `${JSON.stringify(text.slice(0, 80))} is not an address; ${fix}`);
	return { host: (m[1] ?? m[2])!, port };
}

/** Why the process is not ready yet, or null when it is. */
export type ReadinessCheck = () => string | null;

/** A running metrics server. */
export interface MetricsServer {
	/** The address it listens on (the port chosen when 0 was asked). */
	address: ListenAddress;
	/** `http://HOST:PORT`. */
	url: string;
	close(): Promise<void>;
}

/** Starts serving /healthz, /readyz and /metrics on the address. */
export async function startMetricsServer(
	at: ListenAddress,
	registry: Registry,
	notReady: ReadinessCheck,
): Promise<MetricsServer> {
	const server: Server = createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0];
		if (req.method !== 'GET' && req.method !== 'HEAD') {
			res
				.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' })
				.end('method not allowed\n');
			return;
		}
		if (path === '/healthz' || path === '/livez') {
			res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
			return;
		}
		if (path === '/readyz') {
			const why = notReady();
			res
				.writeHead(why ? 503 : 200, { 'Content-Type': 'text/plain' })
				.end(why ? `not ready: ${why}\n` : 'ok\n');
			return;
		}
		if (path === '/metrics') {
			registry.metrics().then(
				(text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
				(err: unknown) =>
					res
						.writeHead(500, { 'Content-Type': 'text/plain' })
						.end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
			);
			return;
		}
		res
			.writeHead(404, { 'Content-Type': 'text/plain' })
			.end('not found: try /metrics, /healthz or /readyz\n');
	});
	server.keepAliveTimeout = 5_000;
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(at.port, at.host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const bound = server.address() as AddressInfo;
	const address = { host: at.host, port: bound.port };
	const host = at.host.includes(':') ? `[${at.host}]` : at.host;
	return {
		address,
		url: `http://${host}:${bound.port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
