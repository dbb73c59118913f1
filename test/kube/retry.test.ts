import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson } from '../../source/kube/api-request.js';
import { loadKube } from '../../source/kube/config.js';
import { apiFailure, KubeHttpError } from '../../source/kube/errors.js';
import {
	isTransient,
	RETRY_PAUSES_MS,
	retryPause,
	sleep,
	waitAtMost,
} from '../../source/kube/retry.js';

/**
 * A server that answers 503 to the first `failures` requests of each method and path, then
 * a plain object: one blip of an API server must cost a retry of a GET, DELETE or PATCH,
 * and never a second POST or PUT (a claim's create and a Lease's compare-and-swap).
 */
let server: Server;
let dir: string;
let file: string;
const seen: string[] = [];
let failures = 1;
const failedSoFar = new Map<string, number>();

beforeAll(async () => {
	server = createServer((req, res) => {
		const key = `${req.method} ${req.url?.split('?')[0]}`;
		seen.push(key);
		req.resume();
		const n = failedSoFar.get(key) ?? 0;
		if (n < failures) {
			failedSoFar.set(key, n + 1);
			res.writeHead(503, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					kind: 'Status',
					apiVersion: 'v1',
					status: 'Failure',
					message: 'busy',
					reason: 'ServiceUnavailable',
					code: 503,
				}),
			);
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(
			JSON.stringify({
				apiVersion: 'v1',
				kind: 'ConfigMap',
				metadata: { name: 'x', namespace: 'corral' },
			}),
		);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const port = (server.address() as { port: number }).port;
	dir = mkdtempSync(join(tmpdir(), 'ctpool-retry-'));
	file = join(dir, 'kubeconfig');
	writeFileSync(
		file,
		`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: http://127.0.0.1:${port}
users:
- name: u
  user:
    token: retry-token
contexts:
- name: r
  context:
    cluster: c
    user: u
current-context: r
`,
	);
});

afterAll(async () => {
	await new Promise((r) => server.close(r));
	rmSync(dir, { recursive: true, force: true });
});

function reset(n: number) {
	failures = n;
	failedSoFar.clear();
	seen.length = 0;
}

describe('transient answers', () => {
	it('a GET, a DELETE and a PATCH succeed after one 503', async () => {
		reset(1);
		const kube = await loadKube({ kubeconfig: file });
		const got = await kube.core.readNamespacedConfigMap({ name: 'x', namespace: 'corral' });
		expect(got.metadata?.name).toBe('x');
		await kube.core.deleteNamespacedConfigMap({ name: 'x', namespace: 'corral' });
		await kube.core.patchNamespacedConfigMap({ name: 'x', namespace: 'corral', body: [] });
		expect(seen.filter((s) => s.startsWith('GET'))).toHaveLength(2);
		expect(seen.filter((s) => s.startsWith('DELETE'))).toHaveLength(2);
		expect(seen.filter((s) => s.startsWith('PATCH'))).toHaveLength(2);
	});

	it('a POST and a PUT are sent once: their first answer decides', async () => {
		reset(1);
		const kube = await loadKube({ kubeconfig: file });
		const body = { metadata: { name: 'x' } };
		const create = await kube.core
			.createNamespacedConfigMap({ namespace: 'corral', body })
			.catch((e: unknown) => e);
		const replace = await kube.core
			.replaceNamespacedConfigMap({ name: 'x', namespace: 'corral', body })
			.catch((e: unknown) => e);
		expect(apiFailure(create)?.code).toBe(503);
		expect(apiFailure(replace)?.code).toBe(503);
		expect(seen).toEqual([
			'POST /api/v1/namespaces/corral/configmaps',
			'PUT /api/v1/namespaces/corral/configmaps/x',
		]);
	});

	it('gives up after four tries and reports the last answer', async () => {
		reset(10);
		const kube = await loadKube({ kubeconfig: file });
		const err = await kube.core
			.readNamespacedConfigMap({ name: 'x', namespace: 'corral' })
			.catch((e: unknown) => e);
		expect(apiFailure(err)?.code).toBe(503);
		expect(seen).toHaveLength(4);
	});
});

describe('raw reads', () => {
	it('a raw GET with retry succeeds after one 503, like the typed clients', async () => {
		reset(1);
		const kube = await loadKube({ kubeconfig: file });
		const got = await getJson<{ metadata: { name: string } }>(
			kube.config,
			'/api/v1/namespaces/corral/configmaps/x',
			{},
			30_000,
			undefined,
			{ retry: true },
		);
		expect(got.metadata.name).toBe('x');
		expect(seen).toEqual([
			'GET /api/v1/namespaces/corral/configmaps/x',
			'GET /api/v1/namespaces/corral/configmaps/x',
		]);
	});
});

describe('the transient-error policy', () => {
	it('retries network failures (code or cause.code) and 429/5xx answers, nothing else', () => {
		const cases: [string, unknown, boolean][] = [
			['refused', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), true],
			['reset', Object.assign(new Error('x'), { code: 'ECONNRESET' }), true],
			[
				'fetch wraps the cause',
				new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }),
				true,
			],
			['undici socket', new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } }), true],
			['DNS', { cause: { code: 'EAI_AGAIN' } }, true],
			['node-fetch system', { type: 'system' }, true],
			['not found host', Object.assign(new Error('x'), { code: 'ENOTFOUND' }), false],
			['certificate', { cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } }, false],
			['abort', Object.assign(new Error('x'), { name: 'AbortError', code: 'ABORT_ERR' }), false],
			['503 answer', new KubeHttpError(503, ''), true],
			['429 answer', new KubeHttpError(429, ''), true],
			['500 statusCode', { statusCode: 500 }, true],
			['404 answer', new KubeHttpError(404, ''), false],
			['409 answer', new KubeHttpError(409, ''), false],
			['501 answer', { statusCode: 501 }, false],
			['plain error', new Error('x'), false],
			['null', null, false],
			['string', 'ECONNRESET', false],
		];
		expect(cases.map(([what, err]) => [what, isTransient(err)])).toEqual(
			cases.map(([what, , want]) => [what, want]),
		);
	});

	it('pauses with jitter while a try is left and the pause ends before the deadline', () => {
		const now = 1_000_000;
		for (const [attempt, base] of RETRY_PAUSES_MS.entries()) {
			const wait = retryPause(attempt, now + 60_000, now);
			expect(wait).toBeGreaterThanOrEqual(base);
			expect(wait).toBeLessThan(2 * base);
		}
		expect(retryPause(RETRY_PAUSES_MS.length, now + 60_000, now)).toBeUndefined();
		expect(retryPause(0, now + 2 * RETRY_PAUSES_MS[0]!, now)).toBeUndefined();
	});

	it('sleep ends at once when its signal aborts', async () => {
		const ctl = new AbortController();
		const slept = sleep(3_600_000, ctl.signal);
		ctl.abort();
		await expect(slept).resolves.toBeUndefined();
		const already = new AbortController();
		already.abort();
		await expect(sleep(3_600_000, already.signal)).resolves.toBeUndefined();
	});
});

describe('waitAtMost', () => {
	it('ends with what it waits for, or at the limit when that never comes', async () => {
		const order: string[] = [];
		await waitAtMost(
			sleep(5).then(() => order.push('done')),
			60_000,
		);
		await waitAtMost(new Promise<void>(() => {}), 5).then(() => order.push('limit'));
		expect(order).toEqual(['done', 'limit']);
		await expect(waitAtMost(Promise.reject(new Error('no')), 60_000)).rejects.toThrow('no');
	});
});
