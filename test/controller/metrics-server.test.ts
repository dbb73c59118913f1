/** The reconciler's endpoints and the reconcile command's new flags. */

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseListenAddress, startMetricsServer } from '../../source/controller/metrics-server.js';
import { PoolError } from '../../source/pool/errors.js';
import { ctpool } from '../commands/capture.js';

describe('the metrics server', () => {
	it('answers /healthz, says why it is not ready on /readyz until it is, and serves /metrics', async () => {
		let why: string | null = 'the watches are not in sync yet';
		const registry = new Registry();
		const server = await startMetricsServer({ host: '127.0.0.1', port: 0 }, registry, () => why);
		try {
			expect(server.address.port).toBeGreaterThan(0);
			expect(server.url).toBe(`http://127.0.0.1:${server.address.port}`);
			const get = async (path: string) => {
				const res = await fetch(`${server.url}${path}`);
				return {
					status: res.status,
					text: await res.text(),
					type: res.headers.get('content-type'),
				};
			};
			expect((await get('/healthz')).status).toBe(200);
			expect(await get('/readyz')).toMatchObject({
				status: 503,
				text: 'not ready: the watches are not in sync yet\n',
			});
			why = null;
			expect(await get('/readyz')).toMatchObject({ status: 200, text: 'ok\n' });
			const metrics = await get('/metrics');
			expect(metrics.status).toBe(200);
			expect(metrics.type).toContain('text/plain');
			expect((await get('/nope')).status).toBe(404);
			expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
		} finally {
			await server.close();
		}
	});

	it('parses HOST:PORT and names the fix for anything else', () => {
		expect(parseListenAddress('metrics-addr', '0.0.0.0:8080')).toEqual({
			host: '0.0.0.0',
			port: 8080,
		});
		expect(parseListenAddress('metrics-addr', '[::1]:0')).toEqual({ host: '::1', port: 0 });
		expect(parseListenAddress('metrics-addr', 'localhost:9090')).toEqual({
			host: 'localhost',
			port: 9090,
		});
		// numbers a resolver would read as addresses (`0` is every address), and IPv6 without brackets
		for (const bad of [
			'8080',
			':8080',
			'host:99999',
			'a b:1',
			'127.0.0.1:-1',
			'0:8080',
			'127.1:8080',
			'2130706433:8080',
			'0x7f.1:8080',
			'[127.0.0.1]:8080',
			'::1:8080',
			'-bad-.example:80',
		]) {
			const err = (() => {
				try {
					parseListenAddress('metrics-addr', bad);
				} catch (e) {
					return e;
				}
			})();
			expect(err).toBeInstanceOf(PoolError);
			expect({ bad, message: (err as PoolError).message }).toEqual({
				bad,
				message: expect.stringContaining('--metrics-addr takes HOST:PORT'),
			});
		}
	});

	it('listens on exactly the address asked for, not on every address', async () => {
		const registry = new Registry();
		const reach = async (host: string, port: number) =>
			fetch(`http://${host}:${port}/healthz`).then(
				(r) => r.status,
				(e: unknown) => ((e as { cause?: { code?: string } }).cause?.code ?? 'failed') as string,
			);
		// 127.0.0.2 is a loopback address of its own on Linux: bound there, 127.0.0.1 is refused
		const two = await startMetricsServer({ host: '127.0.0.2', port: 0 }, registry, () => null);
		try {
			expect(two.url).toBe(`http://127.0.0.2:${two.address.port}`);
			expect(await reach('127.0.0.2', two.address.port)).toBe(200);
			expect(await reach('127.0.0.1', two.address.port)).toBe('ECONNREFUSED');
		} finally {
			await two.close();
		}
		// a host name binds the one address it resolves to, and says which
		const named = await startMetricsServer({ host: 'localhost', port: 0 }, registry, () => null);
		try {
			expect(['127.0.0.1', '::1']).toContain(named.address.host);
			expect(named.url).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/);
			expect(await reach('127.0.0.2', named.address.port)).toBe('ECONNREFUSED');
		} finally {
			await named.close();
		}
	});

	it('[::] is every IPv6 address and no IPv4 one', async (t) => {
		const registry = new Registry();
		const any = await startMetricsServer({ host: '::', port: 0 }, registry, () => null).catch(
			(e: NodeJS.ErrnoException) => e,
		);
		if (any instanceof Error) {
			// Reason: this machine has no IPv6 (the kernel refused the address).
			t.skip(`no IPv6 here: ${any.code}`);
			return;
		}
		try {
			expect(any.url).toBe(`http://[::]:${any.address.port}`);
			expect((await fetch(`http://[::1]:${any.address.port}/healthz`)).status).toBe(200);
			const v4 = await fetch(`http://127.0.0.1:${any.address.port}/healthz`).then(
				() => 'reached',
				(e: unknown) => (e as { cause?: { code?: string } }).cause?.code,
			);
			expect(v4).toBe('ECONNREFUSED');
		} finally {
			await any.close();
		}
	});
});

describe('ctpool reconcile flags', () => {
	it.each([
		[
			['reconcile', 'desk', '--metrics-addr', '127.0.0.1:0'],
			'--metrics-addr only goes with --watch',
		],
		[['reconcile', 'desk', '-A'], '-A/--all-namespaces only goes with --all'],
		[['reconcile', '--all', 'desk'], 'unexpected argument "desk"'],
		[
			['reconcile', '--all', '--watch', '--metrics-addr', 'nowhere'],
			'--metrics-addr takes HOST:PORT',
		],
	])('%j is a usage error', async (argv, text) => {
		const r = await ctpool(argv);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(text);
		expect(r.stdout).toBe('');
	});
});
