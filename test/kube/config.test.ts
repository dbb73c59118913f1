import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { loadKube } from '../../source/kube/config.js';
import { apiFailure, describeError } from '../../source/kube/errors.js';
import { PoolError } from '../../source/pool/errors.js';

let dir: string;
const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };

interface Entry {
	context: string;
	cluster: string;
	server: string;
	user: string;
	token?: string;
}

function kubeconfig(name: string, entries: Entry[], current?: string, extra = ''): string {
	const file = join(dir, name);
	const lines = ['apiVersion: v1', 'kind: Config', 'clusters:'];
	for (const e of entries)
		lines.push(
			`- name: ${e.cluster}`,
			'  cluster:',
			`    server: ${e.server}`,
			'    insecure-skip-tls-verify: true',
		);
	lines.push('contexts:');
	for (const e of entries)
		lines.push(
			`- name: ${e.context}`,
			'  context:',
			`    cluster: ${e.cluster}`,
			`    user: ${e.user}`,
		);
	lines.push('users:');
	for (const e of entries)
		lines.push(`- name: ${e.user}`, '  user:', `    token: ${e.token ?? 'tok'}`);
	if (current) lines.push(`current-context: ${current}`);
	writeFileSync(file, `${lines.join('\n')}\n${extra}`);
	return file;
}

async function usageError(p: Promise<unknown>): Promise<PoolError> {
	const err = await p.then(
		() => null,
		(e: unknown) => e,
	);
	expect(err).toBeInstanceOf(PoolError);
	expect((err as PoolError).kind).toBe('usage');
	return err as PoolError;
}

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'ctpool-kube-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
	for (const [k, v] of Object.entries(saved)) {
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
});

describe('loadKube follows kubectl', () => {
	test('KUBECONFIG merges files, the first file wins names and current-context', async () => {
		const a = kubeconfig(
			'a.yaml',
			[{ context: 'alpha', cluster: 'c1', server: 'http://127.0.0.1:1001', user: 'u1' }],
			'alpha',
		);
		const b = kubeconfig(
			'b.yaml',
			[
				{ context: 'alpha', cluster: 'c1', server: 'http://127.0.0.1:9999', user: 'u1' },
				{ context: 'beta', cluster: 'c2', server: 'http://127.0.0.1:1002', user: 'u2' },
			],
			'beta',
		);
		process.env.KUBECONFIG = [join(dir, 'missing.yaml'), a, b].join(delimiter);
		const kube = await loadKube({});
		expect(kube.contextName).toBe('alpha');
		expect(kube.server).toBe('http://127.0.0.1:1001');
		expect(kube.config.getContexts().map((c) => c.name)).toEqual(['alpha', 'beta']);

		const beta = await loadKube({ context: 'beta' });
		expect(beta.contextName).toBe('beta');
		expect(beta.server).toBe('http://127.0.0.1:1002');
		expect(beta.config.getCurrentUser()?.name).toBe('u2');
	});

	test('--kubeconfig wins over KUBECONFIG', async () => {
		const a = kubeconfig(
			'env.yaml',
			[{ context: 'env', cluster: 'c1', server: 'http://127.0.0.1:1001', user: 'u1' }],
			'env',
		);
		const flag = kubeconfig(
			'flag.yaml',
			[{ context: 'flag', cluster: 'c9', server: 'http://127.0.0.1:1009', user: 'u9' }],
			'flag',
		);
		process.env.KUBECONFIG = a;
		const kube = await loadKube({ kubeconfig: flag });
		expect(kube.contextName).toBe('flag');
		expect(kube.server).toBe('http://127.0.0.1:1009');
	});

	test('~/.kube/config when KUBECONFIG is unset or empty', async () => {
		const home = mkdtempSync(join(dir, 'home-'));
		const { mkdirSync, renameSync } = await import('node:fs');
		mkdirSync(join(home, '.kube'));
		const file = kubeconfig(
			'home.yaml',
			[{ context: 'home', cluster: 'ch', server: 'http://127.0.0.1:1003', user: 'uh' }],
			'home',
		);
		renameSync(file, join(home, '.kube', 'config'));
		process.env.HOME = home;
		process.env.KUBECONFIG = '';
		expect((await loadKube({})).contextName).toBe('home');
		delete process.env.KUBECONFIG;
		expect((await loadKube({})).server).toBe('http://127.0.0.1:1003');
	});

	test('namespace: -n, else corral (not the context namespace)', async () => {
		const file = kubeconfig(
			'ns.yaml',
			[{ context: 'x', cluster: 'c', server: 'http://127.0.0.1:1004', user: 'u' }],
			'x',
		);
		expect((await loadKube({ kubeconfig: file })).namespace).toBe('corral');
		expect((await loadKube({ kubeconfig: file, namespace: 'labs' })).namespace).toBe('labs');
	});

	test('an unknown context names the contexts there are', async () => {
		const file = kubeconfig(
			'ctx.yaml',
			[
				{ context: 'a', cluster: 'c1', server: 'http://127.0.0.1:1', user: 'u1' },
				{ context: 'b', cluster: 'c2', server: 'http://127.0.0.1:2', user: 'u2' },
			],
			'a',
		);
		const err = await usageError(loadKube({ kubeconfig: file, context: 'x' }));
		expect(err.message).toContain('context "x" not found in the kubeconfig; the contexts are a, b');
	});

	test('a current-context that does not exist, and none at all', async () => {
		const entries = [{ context: 'a', cluster: 'c1', server: 'http://127.0.0.1:1', user: 'u1' }];
		const stale = kubeconfig('stale.yaml', entries, 'gone');
		expect((await usageError(loadKube({ kubeconfig: stale }))).message).toContain(
			'context "gone" not found in the kubeconfig; the contexts are a',
		);
		const none = kubeconfig('none.yaml', entries);
		const err = await usageError(loadKube({ kubeconfig: none }));
		expect(err.message).toContain('no current-context');
		expect(err.message).toContain('--context');
	});

	test('a missing --kubeconfig file and no kubeconfig at all', async () => {
		const missing = join(dir, 'nope.yaml');
		const err = await usageError(loadKube({ kubeconfig: missing }));
		expect(err.message).toBe(
			`kubeconfig ${missing} not found: check the path given to --kubeconfig`,
		);

		process.env.HOME = mkdtempSync(join(dir, 'empty-home-'));
		process.env.KUBECONFIG = join(dir, 'also-missing.yaml');
		expect((await usageError(loadKube({}))).message).toBe(
			'no kubeconfig found: set KUBECONFIG or pass --kubeconfig FILE, or try ctpool --demo',
		);
		delete process.env.KUBECONFIG;
		expect((await usageError(loadKube({}))).message).toContain('no kubeconfig found');
	});

	test('a broken kubeconfig is named without quoting its contents', async () => {
		const file = join(dir, 'broken.yaml');
		writeFileSync(
			file,
			'users:\n- name: u\n  user:\n    token: s3cr3t-T0KEN-value\n  bad: [unclosed\ncontexts: {',
		);
		const err = await usageError(loadKube({ kubeconfig: file }));
		expect(err.message).toContain(`cannot load kubeconfig ${file}: not valid YAML`);
		expect(err.message).not.toContain('s3cr3t');
	});

	test('a plain http server works without insecure-skip-tls-verify', async () => {
		const file = join(dir, 'plain.yaml');
		writeFileSync(
			file,
			[
				'apiVersion: v1',
				'clusters:',
				'- name: c',
				'  cluster: {server: "http://127.0.0.1:1"}',
				'contexts:',
				'- name: p',
				'  context: {cluster: c, user: u}',
				'users:',
				'- name: u',
				'  user: {token: abc}',
				'current-context: p',
			].join('\n'),
		);
		const kube = await loadKube({ kubeconfig: file, requestTimeoutMs: 2000 });
		// Nothing listens on port 1: the call fails as unreachable, not with a TLS complaint.
		const err = await kube.core.listNamespacedPod({ namespace: 'corral' }).catch((e: unknown) => e);
		expect(apiFailure(err)).toMatchObject({ code: 0, reason: 'ConnectionRefused' });
		expect(describeError(err)).toContain('cannot reach the cluster: connection refused');
	});
});

describe('API calls', () => {
	let blackHole: Server;
	let port: number;
	const requests: string[] = [];
	beforeAll(async () => {
		// A server that reads requests and never answers.
		blackHole = createServer((socket) => {
			socket.on('data', (d) => requests.push(d.toString('latin1')));
		});
		await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
		port = (blackHole.address() as { port: number }).port;
	});
	afterAll(async () => {
		await new Promise((r) => blackHole.close(r));
	});

	test('every call has a deadline and says it is ctpool', async () => {
		const file = kubeconfig(
			'hole.yaml',
			[
				{
					context: 'h',
					cluster: 'c',
					server: `http://127.0.0.1:${port}`,
					user: 'u',
					token: 'hole-token-1234567',
				},
			],
			'h',
		);
		const kube = await loadKube({ kubeconfig: file, requestTimeoutMs: 300 });
		const err = await kube.core
			.readNamespacedConfigMap({ name: 'x', namespace: 'corral' })
			.catch((e: unknown) => e);
		expect(apiFailure(err)).toMatchObject({ code: 0, reason: 'Timeout' });
		expect(describeError(err)).toContain('no answer from the cluster within 0.3 s');
		const head = requests.find((r) => r.includes('/configmaps/x')) ?? '';
		expect(head).toMatch(/user-agent: ctpool\/\d+\.\d+\.\d+/i);
		expect(describeError(err)).not.toContain('hole-token-1234567');
	});
});
