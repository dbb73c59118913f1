/**
 * The reconciler's HTTP endpoints: /healthz (the process answers), /readyz (every watch has
 * synced) and /metrics (Prometheus text from prom-client).
 */

import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import type { Registry } from 'prom-client';
import { PoolError } from '../pool/errors.js';

/** A listen address: host and port (0 = any free port). */
export interface ListenAddress {
	host: string;
	port: number;
}

/**
 * Whether a host is a name to look up: DNS labels with a letter in the last one. A number
 * such as `0` or `127.1` is not: the resolver reads those as addresses (`0` is every
 * address), which is not what the text says.
 */
function isHostName(host: string): boolean {
	return (
		host.length <= 253 &&
		/^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
			host,
		) &&
		/[A-Za-z]/.test(host.slice(host.lastIndexOf('.') + 1))
	);
}

/**
 * Parses `HOST:PORT` (`[::1]:8080`, `10.1.2.3:8080`, `127.0.0.1:0`, `localhost:9090`): HOST
 * is an IP address (IPv6 in brackets) or a host name; a usage error names the fix.
 */
export function parseListenAddress(flag: string, text: string): ListenAddress {
	const fix = `--${flag} takes HOST:PORT, where HOST is an IP address (IPv6 in brackets) or a host name, such as 127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080 for every IPv4 address, or $(POD_IP):8080 in a pod (port 0 picks a free port)`;
	const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
	const port = m ? Number(m[3]) : Number.NaN;
	const host = m ? (m[1] ?? m[2])! : '';
	const known = m?.[1] !== undefined ? isIP(host) === 6 : isIP(host) === 4 || isHostName(host);
	if (!m || port > 65535 || !known)
		throw new PoolError('usage', `${JSON.stringify(text.slice(0, 80))} is not an address; ${fix}`);
	return { host, port };
}

/** The one address a host stands for: itself when it is an IP address, else what it resolves to first. */
async function bindAddress(host: string): Promise<string> {
	if (isIP(host) !== 0) return host;
	return (await lookup(host)).address;
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
	// Exactly where asked: one address (an IPv6 one without IPv4 beside it), never more.
	const ip = await bindAddress(at.host);
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen({ port: at.port, host: ip, ipv6Only: isIP(ip) === 6 }, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const bound = server.address() as AddressInfo;
	const address = { host: bound.address, port: bound.port };
	const host = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
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
