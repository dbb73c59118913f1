/**
 * Access: the simulated cluster wants its token and listens on loopback only; ctpool never
 * prints a token, password or client key from a kubeconfig, on success or on any error
 * path; and an RBAC denial from any command names the verb, the resource and the namespace.
 */

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ctpool, type RunResult } from '../commands/capture.js';
import { BUILT, CLI } from '../support/built-cli.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { simFetch } from '../support/sim.js';
import { waitFor } from '../support/wait.js';
import { runBinary } from './safety-cluster.js';

let c: TestCluster;
beforeAll(async () => {
	c = await startTestCluster();
	const made = await ctpool([
		'apply',
		'desk',
		'--image',
		'ghcr.io/example/desktop:1',
		'--size',
		'2',
		'--cpu',
		'1',
		...c.kc,
	]);
	expect(made.code).toBe(0);
	await c.running('desk');
	expect((await ctpool(['claim', 'desk', 'alice@example.com', ...c.kc])).stdout).toBe('desk-1\n');
}, 60_000);
afterAll(() => c?.close());

/** Resolves how a TCP connection to host:port ends: 'connected' or the error code. */
function tryConnect(host: string, port: number): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect({ host, port });
		const done = (what: string) => {
			socket.destroy();
			resolve(what);
		};
		socket.once('connect', () => done('connected'));
		socket.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? 'error'));
		socket.setTimeout(3000, () => done('timeout'));
	});
}

/** This machine's addresses other than loopback. */
function outsideAddresses(): string[] {
	return Object.values(networkInterfaces())
		.flat()
		.filter((a) => a && !a.internal && a.family === 'IPv4')
		.map((a) => a!.address);
}

describe('the simulated cluster', () => {
	it('answers 401 without its token or with another, on REST, watch and exec paths', async () => {
		const paths = [
			'/api/v1/namespaces/corral/pods',
			'/api/v1/namespaces/corral/pods?watch=true',
			'/apis/coordination.k8s.io/v1/namespaces/corral/leases',
			'/api/v1/namespaces/corral/pods/desk-1/exec?command=sh&stdout=true',
			'/version',
			'/api',
		];
		for (const path of paths) {
			for (const token of [null, 'not-the-token', `${c.sim.token}x`, '']) {
				const r = await simFetch(c.sim, path, { token });
				expect({ path, token, status: r.status }).toEqual({ path, token, status: 401 });
				expect(r.text).not.toContain(c.sim.token);
			}
			const ok = await simFetch(c.sim, path.replace('watch=true', 'watch=false'));
			if (!path.includes('/exec'))
				expect({ path, status: ok.status }).toEqual({ path, status: 200 });
		}
		const mark = c.sim.audit.mark();
		const write = await simFetch(c.sim, '/api/v1/namespaces/corral/pods/desk-1', {
			method: 'DELETE',
			token: null,
		});
		expect(write.status).toBe(401);
		expect(c.sim.audit.since(mark).mutations).toEqual([]);
		expect(c.sim.store.get('pods', 'corral', 'desk-1')?.metadata.deletionTimestamp).toBeUndefined();
	});

	it('listens on 127.0.0.1 only', async () => {
		expect(new URL(c.sim.url).hostname).toBe('127.0.0.1');
		expect(await tryConnect('127.0.0.1', c.sim.port)).toBe('connected');
		const outside = outsideAddresses();
		if (outside.length === 0)
			console.warn('no non-loopback IPv4 address here: only 127.0.0.1 checked');
		for (const address of outside)
			expect({ address, result: await tryConnect(address, c.sim.port) }).toEqual({
				address,
				result: 'ECONNREFUSED',
			});
	});

	// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
	// only when the file is run alone before `npm run build`.
	it.skipIf(!BUILT)(
		'`ctpool sim` listens on 127.0.0.1 only and never prints its token',
		async () => {
			const kubeconfig = join(c.test.dir, 'sim-command.kubeconfig');
			const child = spawn(process.execPath, [CLI, 'sim', '--kubeconfig', kubeconfig], {
				stdio: ['ignore', 'pipe', 'pipe'],
				env: { ...process.env, NO_COLOR: '1' },
			});
			let out = '';
			child.stdout.on('data', (d: Buffer) => {
				out += d.toString();
			});
			child.stderr.on('data', (d: Buffer) => {
				out += d.toString();
			});
			try {
				const port = await waitFor(
					() => Number(/running at https:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0),
					{
						what: 'the address it serves on',
						timeoutMs: 30_000,
						intervalMs: 50,
						detail: () => out,
					},
				);
				expect(await tryConnect('127.0.0.1', port)).toBe('connected');
				for (const address of outsideAddresses())
					expect(await tryConnect(address, port)).toBe('ECONNREFUSED');
				const { readFileSync } = await import('node:fs');
				const token = /token: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1];
				expect(token).toBeTruthy();
				expect(out).not.toContain(token!);
			} finally {
				const exited = new Promise((resolve) => child.once('exit', resolve));
				child.kill('SIGINT');
				await exited;
			}
			expect(out).not.toMatch(/token: /);
		},
	);
});

const SECRET_TOKEN = 'TOPSECRETtoken0123456789abcdefXYZ';
const SECRET_PASSWORD = 'hunter2-PASSW0RD-secret';
const KEY_TEXT =
	'-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7KEYMATERIALxyz\n-----END PRIVATE KEY-----\n';
const CERT_TEXT =
	'-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUCERTMATERIALxyz0123456789\n-----END CERTIFICATE-----\n';
const KEY_B64 = Buffer.from(KEY_TEXT).toString('base64');
const CERT_B64 = Buffer.from(CERT_TEXT).toString('base64');
/** Every piece of a secret that must never be printed. */
const SECRETS = [
	SECRET_TOKEN,
	SECRET_PASSWORD,
	'KEYMATERIAL',
	'CERTMATERIAL',
	'BEGIN PRIVATE KEY',
	KEY_B64.slice(0, 24),
	KEY_B64.slice(-24),
	CERT_B64.slice(0, 24),
];

function kubeconfig(server: string, user: string, extra = ''): string {
	return [
		'apiVersion: v1',
		'kind: Config',
		'clusters:',
		'- name: c',
		'  cluster:',
		`    server: ${server}`,
		'    insecure-skip-tls-verify: true',
		'users:',
		'- name: u',
		'  user:',
		user,
		'contexts:',
		'- name: x',
		'  context:',
		'    cluster: c',
		'    user: u',
		'    namespace: corral',
		'current-context: x',
		extra,
		'',
	].join('\n');
}

/** Every command, with a read and a write of each kind. */
const COMMANDS: string[][] = [
	['status', 'desk'],
	['status', 'desk', '-o', 'json'],
	['status', 'desk', '-o', 'yaml'],
	['reconcile', 'desk'],
	['claim', 'desk', 'bob@example.com'],
	['release', 'desk', 'desk-2', 'bob@example.com'],
	['maintenance', 'desk', 'desk-2', 'on', 'check'],
	['maintenance', 'desk', 'desk-2', 'off'],
	['apply', 'desk', '--size', '2'],
	['delete', 'nosuchpool'],
	['status', 'desk', '--help'],
];

function leaks(r: RunResult): string[] {
	const text = r.stdout + r.stderr;
	return SECRETS.filter((s) => text.includes(s));
}

/** Commands enough to cover each error path when every call is slow to fail. */
const FEW: string[][] = [
	['status', 'desk'],
	['release', 'desk', 'desk-2', 'bob@example.com'],
];

/** A kubeconfig that fails one way, the message it must give, and the commands to try. */
const LEAK_CASES: Array<[string, () => string, RegExp, string[][]]> = [
	[
		'a token the cluster rejects (401)',
		() => kubeconfig(c.sim.httpsUrl, `    token: ${SECRET_TOKEN}`),
		/unauthorized/,
		COMMANDS,
	],
	[
		'basic auth the cluster rejects (401)',
		() => kubeconfig(c.sim.httpsUrl, `    username: admin\n    password: ${SECRET_PASSWORD}`),
		/unauthorized/,
		COMMANDS,
	],
	[
		'an unreachable server',
		() => kubeconfig('https://127.0.0.1:1', `    token: ${SECRET_TOKEN}`),
		/cannot reach the cluster/,
		FEW,
	],
	[
		'a password in the server URL of an unreachable server',
		() => kubeconfig(`https://admin:${SECRET_PASSWORD}@127.0.0.1:1`, `    token: ${SECRET_TOKEN}`),
		/cannot reach the cluster/,
		FEW,
	],
	[
		'a client key and certificate the TLS layer cannot use',
		() =>
			kubeconfig(
				c.sim.httpsUrl,
				`    client-certificate-data: ${CERT_B64}\n    client-key-data: ${KEY_B64}`,
			),
		/./,
		COMMANDS,
	],
	[
		'broken YAML around a token',
		() => kubeconfig(c.sim.httpsUrl, `    token: ${SECRET_TOKEN}\n   broken: [yaml`),
		/not valid YAML/,
		COMMANDS,
	],
	[
		'a token under a user the context does not name',
		() =>
			kubeconfig(c.sim.httpsUrl, `    token: ${SECRET_TOKEN}`).replace(
				'    user: u\n',
				'    user: nobody\n',
			),
		/unauthorized|user/,
		COMMANDS,
	],
	[
		'an exec plugin that prints the token on stderr and fails',
		() =>
			kubeconfig(
				c.sim.httpsUrl,
				`    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: /bin/sh\n      args: ["-c", "echo token ${SECRET_TOKEN} >&2; exit 3"]`,
			),
		/./,
		COMMANDS,
	],
	[
		'a kubeconfig that is a token and nothing else',
		() => `${SECRET_TOKEN}\n`,
		/kubeconfig/,
		COMMANDS,
	],
];

describe('ctpool never prints kubeconfig secrets', () => {
	for (const [what, text, expected, commands] of LEAK_CASES) {
		it(`on the error path of ${what}, for every command`, async () => {
			const file = join(c.test.dir, `leak-${what.replace(/\W+/g, '-')}.kubeconfig`);
			writeFileSync(file, text(), { mode: 0o600 });
			for (const argv of commands) {
				const r = await ctpool([...argv, '--kubeconfig', file]);
				const run = argv.join(' ');
				expect({ run, leaks: leaks(r) }).toEqual({ run, leaks: [] });
				if (argv.includes('--help')) continue;
				expect({ run, failed: r.code !== 0 }).toEqual({ run, failed: true });
				expect(r.stderr).toMatch(expected);
			}
		});
	}

	it('on success, and with the real token in a server URL password too', async () => {
		const file = join(c.test.dir, 'good.kubeconfig');
		const url = new URL(c.sim.url);
		writeFileSync(
			file,
			kubeconfig(
				`http://admin:${SECRET_PASSWORD}@127.0.0.1:${url.port}`,
				`    token: ${c.sim.token}`,
			),
			{ mode: 0o600 },
		);
		for (const argv of COMMANDS) {
			const r = await ctpool([...argv, '--kubeconfig', file]);
			expect({ argv: argv.join(' '), leaks: leaks(r) }).toEqual({
				argv: argv.join(' '),
				leaks: [],
			});
			expect(r.stdout + r.stderr).not.toContain(c.sim.token);
		}
	});

	// Reason: these run the built bundle (dist/cli.js); npm test builds it first, so they skip
	// only when the file is run alone before `npm run build`.
	it.skipIf(!BUILT)('through the built binary, on a 401 and an unreachable server', async () => {
		for (const [server, user] of [
			[c.sim.httpsUrl, `    token: ${SECRET_TOKEN}`],
			[`https://admin:${SECRET_PASSWORD}@127.0.0.1:1`, `    token: ${SECRET_TOKEN}`],
		] as const) {
			const file = join(c.test.dir, 'binary.kubeconfig');
			writeFileSync(file, kubeconfig(server, user), { mode: 0o600 });
			const r = await runBinary(['claim', 'desk', 'bob@example.com', '--kubeconfig', file]);
			expect(r.code).toBe(1);
			expect(r.stderr).toMatch(/^ctpool: .*(unauthorized|cannot reach the cluster)/);
			expect(leaks({ code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr })).toEqual([]);
			const viaEnv = await runBinary(['status', 'desk'], { KUBECONFIG: file });
			expect(viaEnv.code).toBe(1);
			expect(leaks({ code: 1, stdout: viaEnv.stdout, stderr: viaEnv.stderr })).toEqual([]);
		}
	});
});

/** A command, what to deny, and the words its message must name. */
const DENIALS: Array<[string[], string, RegExp]> = [
	[['status', 'desk'], 'get configmaps', /get configmaps.* in namespace corral/],
	[['status', 'desk'], 'list pods', /list pods in namespace corral/],
	[['status', 'desk'], 'list leases', /list leases\S* in namespace corral/],
	[
		['status', 'desk', '-o', 'json'],
		'list persistentvolumeclaims',
		/list persistentvolumeclaims in namespace corral/,
	],
	[['reconcile', 'desk'], 'list pods', /list pods in namespace corral/],
	[['reconcile', 'desk'], 'get configmaps', /get configmaps.* in namespace corral/],
	[['apply', 'desk', '--size', '3'], 'patch configmaps', /patch configmaps.* in namespace corral/],
	[
		['apply', 'fresh', '--image', 'ghcr.io/example/desktop:1', '--size', '1'],
		'create configmaps',
		/create configmaps.* in namespace corral/,
	],
	[['apply', 'desk', '--size', '3'], 'create leases', /create leases\S* in namespace corral/],
	[
		['apply', 'desk', '--size', '3'],
		'create persistentvolumeclaims',
		/create persistentvolumeclaims in namespace corral/,
	],
	[['apply', 'desk', '--size', '3'], 'create pods', /create pods in namespace corral/],
	[['claim', 'desk', 'bob@example.com'], 'create leases', /create leases\S* in namespace corral/],
	[['claim', 'desk', 'bob@example.com'], 'list leases', /list leases\S* in namespace corral/],
	[
		['release', 'desk', 'desk-1', 'alice@example.com'],
		'update leases',
		/update leases\S* in namespace corral/,
	],
	[
		['release', 'desk', 'desk-1', 'alice@example.com'],
		'get leases',
		/get leases\S* in namespace corral/,
	],
	[
		['release', 'desk', 'desk-1', 'alice@example.com'],
		'delete pods',
		/delete pods in namespace corral/,
	],
	[
		['maintenance', 'desk', 'desk-2', 'on'],
		'patch persistentvolumeclaims',
		/patch persistentvolumeclaims in namespace corral/,
	],
	[['delete', 'desk'], 'patch configmaps', /patch configmaps.* in namespace corral/],
	[['delete', 'desk'], 'list pods', /list pods in namespace corral/],
];

describe('an RBAC denial', () => {
	for (const [argv, deny, message] of DENIALS) {
		it(`of "${deny}" makes ctpool ${argv.join(' ')} name the verb, resource and namespace`, async () => {
			c.sim.config.deny = [deny];
			let r: RunResult;
			try {
				r = await ctpool([...argv, ...c.kc]);
			} finally {
				c.sim.config.deny = [];
			}
			expect(r.code).toBe(1);
			expect(r.stderr).toMatch(/forbidden/);
			expect(r.stderr).toMatch(message);
			expect(r.stderr).not.toMatch(/\n\s+at /);
		});
	}
});
