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
		for (const bad of ['8080', ':8080', 'host:99999', 'a b:1', '127.0.0.1:-1']) {
			const err = (() => {
				try {
					parseListenAddress('metrics-addr', bad);
				} catch (e) {
					return e;
				}
			})();
			expect(err).toBeInstanceOf(PoolError);
			expect((err as PoolError).message).toContain('--metrics-addr takes HOST:PORT');
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
