/**
 * Issue 12, findings 8 and 9: an exec credential plugin runs once per process and its output
 * never reaches an error text; a kubeconfig user's `tokenFile` (kubectl's name) is honoured.
 * Against the simulated cluster, with fake plugins that count their runs.
 */

import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineContext, listPools } from '../../source/engine/index.js';
import { loadKube } from '../../source/kube/config.js';
import { describeError } from '../../source/kube/errors.js';
import { forgetExecCredentials } from '../../source/kube/exec-credential.js';
import { startTestSim, type TestSim } from '../support/sim.js';

let sim: TestSim;
beforeAll(async () => {
	sim = await startTestSim();
});
afterAll(() => sim?.cleanup());

/** A kubeconfig for the simulated cluster whose user is given as YAML lines. */
function kubeconfigWith(name: string, userLines: string[]): string {
	const file = join(sim.dir, name);
	writeFileSync(
		file,
		[
			'apiVersion: v1',
			'kind: Config',
			'clusters:',
			'- name: sim',
			'  cluster:',
			`    server: ${sim.cluster.url}`,
			'    insecure-skip-tls-verify: true',
			'contexts:',
			'- name: sim',
			'  context: {cluster: sim, user: u, namespace: corral}',
			'current-context: sim',
			'users:',
			'- name: u',
			'  user:',
			...userLines.map((l) => `    ${l}`),
			'',
		].join('\n'),
	);
	return file;
}

/** A plugin script that counts its runs in a file and prints the given text. */
function plugin(name: string, output: string): { path: string; runs: () => number } {
	const path = join(sim.dir, `${name}.sh`);
	const count = join(sim.dir, `${name}.count`);
	writeFileSync(count, '');
	writeFileSync(path, `#!/bin/sh\necho run >> '${count}'\ncat <<'EOF'\n${output}\nEOF\n`);
	chmodSync(path, 0o755);
	return { path, runs: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}

async function failureOf(p: Promise<unknown>): Promise<string> {
	const err = await p.then(
		() => null,
		(e: unknown) => e,
	);
	expect(err).not.toBeNull();
	return `${describeError(err)} ${(err as Error).message} ${(err as Error).stack ?? ''}`;
}

describe('an exec credential plugin', () => {
	it('printing a bare token: the error names the plugin, never any part of the token', async () => {
		forgetExecCredentials();
		const p = plugin('bare', 'abcSECRETtok1');
		const kube = await loadKube({
			kubeconfig: kubeconfigWith('bare.yaml', [
				'exec:',
				'  apiVersion: client.authentication.k8s.io/v1',
				`  command: ${p.path}`,
				'  interactiveMode: Never',
			]),
		});
		const text = await failureOf(listPools(createEngineContext(kube)));
		expect(text).toContain('exec credential plugin');
		expect(text).not.toContain('abcSECRET');
		expect(text).not.toContain('Unexpected token');
	});

	it('printing a long token with no expiry: one run for the whole process', async () => {
		forgetExecCredentials();
		const token = sim.cluster.token;
		const p = plugin(
			'good',
			JSON.stringify({
				apiVersion: 'client.authentication.k8s.io/v1',
				kind: 'ExecCredential',
				status: { token },
			}),
		);
		const file = kubeconfigWith('good.yaml', [
			'exec:',
			'  apiVersion: client.authentication.k8s.io/v1',
			`  command: ${p.path}`,
			'  interactiveMode: Never',
		]);
		const ctx = createEngineContext(await loadKube({ kubeconfig: file }));
		await Promise.all([listPools(ctx), listPools(ctx), listPools(ctx)]);
		await listPools(ctx);
		// A second load in the same process (the console reconnecting) runs it no more.
		await listPools(createEngineContext(await loadKube({ kubeconfig: file })));
		expect(p.runs()).toBe(1);
	});

	it('that fails: its stderr and stdout are not quoted', async () => {
		forgetExecCredentials();
		const path = join(sim.dir, 'fail.sh');
		writeFileSync(path, '#!/bin/sh\necho "token=zzSECRETzz" >&2\necho zzSECRETzz\nexit 3\n');
		chmodSync(path, 0o755);
		const kube = await loadKube({
			kubeconfig: kubeconfigWith('fail.yaml', [
				'exec:',
				'  apiVersion: client.authentication.k8s.io/v1',
				`  command: ${path}`,
			]),
		});
		const text = await failureOf(listPools(createEngineContext(kube)));
		expect(text).toContain('exit code 3');
		expect(text).not.toContain('zzSECRET');
	});
});

describe("a kubeconfig user with tokenFile (kubectl's field)", () => {
	it('is sent the token of the file', async () => {
		const tokenPath = join(sim.dir, 'token');
		writeFileSync(tokenPath, `${sim.cluster.token}\n`);
		const kube = await loadKube({
			kubeconfig: kubeconfigWith('tokenfile.yaml', [`tokenFile: ${tokenPath}`]),
		});
		await expect(listPools(createEngineContext(kube))).resolves.toEqual([]);
	});
});
